// @slow
// The Temporal UI, in Debian's Chromium, shows a finished two-level agent tree: the parent in the
// workflow list, its summaries and its child, and the child's own page. Screenshots go to test-results/ui/.
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { agentUiUrl } from '../../src/cli/commands/ui';
import { SubagentsClient } from '../../src/client/client';
import { freePort, startDevServer, type DevServer } from '../../src/dev/dev-server';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import type { AgentResult } from '../../src/shared/agents/agent';
import { createAgentWorker } from '../../src/worker/worker';
import { testHomeDir, uniqueTaskQueue } from '../helpers/temporal';
import { exploreChildTurn } from '../helpers/unit-scripted-turns';

const chromiumPath = '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
if (!hasChromium) {
  console.log(
    `test/ui/temporal-ui.test.ts: skipped, ${chromiumPath} is absent (install Debian's chromium: apt-get install -y chromium).`,
  );
}

const screenshots = path.join(import.meta.dirname, '..', '..', 'test-results', 'ui');
const rootModel = 'claude-test-tiny';
const childDescription = 'find the parser';

/** Everything the test starts, so afterAll can stop what did start even when beforeAll failed half-way. */
const started: {
  directory?: string;
  server?: DevServer;
  modelServer?: ModelServer;
  nativeConnection?: NativeConnection;
  connection?: Connection;
  worker?: Worker;
  running?: Promise<void>;
  browser?: BrowserContext;
} = {};

let page: Page;
let uiUrl: string;
let rootId: string;
let childId: string;
let rootRunId: string;
let childRunId: string;
let childModel: string;
let subagents: SubagentsClient;
let workspaceDir: string;
const liveText = 'LIVE-TEXT streaming: the parser lives in src/parser.ts, and it splits on spaces; the tests are next.';
const docsScreenshot = path.join(import.meta.dirname, '..', '..', 'docs', 'ui-live-text.png');

/** Text of the page and of all its frames (the UI renders summaries and details as markdown in iframes). */
async function pageText(target: Page): Promise<string> {
  const texts = await Promise.all(
    target.frames().map((frame) =>
      frame
        .locator('body')
        .innerText({ timeout: 2000 })
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

/**
 * Opens a UI page and reloads it until every expected text shows (visibility and rendering lag a
 * little behind the server). Fails with what was missing and what the page showed.
 */
async function openUntilShown(url: string, expected: string[], timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  for (;;) {
    for (let check = 0; check < 10; check++) {
      text = await pageText(page);
      if (expected.every((item) => text.includes(item))) return text;
      await page.waitForTimeout(500);
    }
    if (Date.now() > deadline) break;
    await page.reload({ waitUntil: 'domcontentloaded' });
  }
  const missing = expected.filter((item) => !text.includes(item));
  throw new Error(
    `The UI page ${page.url()} did not show ${JSON.stringify(missing)} within ${timeoutMs} ms. It showed:\n${text.slice(0, 3000)}`,
  );
}

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

async function waitForUi(url: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`The Temporal UI at ${url} did not answer within ${timeoutMs} ms.`);
}

const workflowPage = (agentId: string, runId: string, tab: string) =>
  `${uiUrl}/namespaces/default/workflows/${agentId}/${runId}/${tab}`;

describe('Temporal UI: a finished two-level agent tree', () => {
  beforeAll(async () => {
    if (!hasChromium) return;
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Already installed in this process.
    }
    mkdirSync(screenshots, { recursive: true });
    started.directory = mkdtempSync(path.join(os.tmpdir(), 'subagents-ui-'));
    const workspace = realpathSync(mkdtempSync(path.join(started.directory, 'workspace-')));
    mkdirSync(path.join(workspace, 'src'));
    writeFileSync(
      path.join(workspace, 'src', 'parser.ts'),
      'export function parse(text: string) { return text.split(" "); }\n',
    );

    // Its own dev server, with the UI (the suite's shared server is headless).
    started.server = await startDevServer({
      port: 0,
      uiPort: await freePort(),
      logFile: path.join(started.directory, 'temporal.log'),
    });
    uiUrl = started.server.uiUrl!;
    const uiAnswering = waitForUi(uiUrl);

    started.modelServer = await startModelServer({
      port: 0,
      behaviour: {
        kind: 'scripted',
        scenario: {
          agents: [
            {
              match: { agentName: 'ui-root' },
              turns: [
                exploreChildTurn(childDescription, 'Find the file that defines parse()'),
                { text: 'The parser is in src/parser.ts.' },
              ],
            },
            {
              match: { agentType: 'Explore' },
              turns: [
                { toolUses: [{ name: 'Glob', input: { pattern: '**/*.ts' } }] },
                { text: 'src/parser.ts defines parse().' },
              ],
            },
            // A slow stream: one event every 4 s, so the UI can be looked at while the text arrives.
            { match: { agentName: 'ui-live' }, turns: [{ text: liveText, eventDelayMs: 4000 }] },
          ],
        } as never,
      },
    });
    started.nativeConnection = await NativeConnection.connect({ address: started.server.address });
    started.connection = await Connection.connect({ address: started.server.address });
    const temporal = new Client({ connection: started.connection, namespace: 'default' });
    const taskQueue = uniqueTaskQueue('ui');
    started.worker = await createAgentWorker({
      connection: started.nativeConnection,
      client: temporal,
      namespace: 'default',
      taskQueue,
      anthropic: new Anthropic({ apiKey: 'test-key', baseURL: started.modelServer.url, maxRetries: 0 }),
      workflowBundle: { codePath: inject('workflowBundlePath') },
      toolResultsDir: path.join(started.directory, 'tool-results'),
      homeDir: testHomeDir(),
    });
    started.running = started.worker.run();

    const client = new SubagentsClient(temporal, taskQueue);
    subagents = client;
    workspaceDir = workspace;
    const root = await client.startAgent({
      prompt: 'Find the parser, with help',
      name: 'ui-root',
      cwd: workspace,
      model: rootModel,
    });
    const rootResult = await root.result();
    expect(rootResult.status, rootResult.error ?? rootResult.finalText).toBe('completed');
    rootId = root.agentId;
    childId = `${rootId}.1`;
    const child = temporal.workflow.getHandle(childId);
    childModel = ((await child.result()) as AgentResult).model;
    rootRunId = (await root.describe()).runId;
    childRunId = (await child.describe()).runId;

    await uiAnswering;
    started.browser = await chromium.launchPersistentContext(
      mkdtempSync(path.join(started.directory, 'chromium-profile-')),
      {
        executablePath: chromiumPath,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-quic',
          '--no-first-run',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1400, height: 1000 },
      },
    );
    page = started.browser.pages()[0] ?? (await started.browser.newPage());
  }, 240_000);

  afterAll(async () => {
    await started.browser?.close();
    if (started.running) {
      started.worker!.shutdown();
      await started.running;
    }
    await started.connection?.close();
    await started.nativeConnection?.close();
    await started.modelServer?.close();
    await started.server?.stop();
    if (started.directory) rmSync(started.directory, { recursive: true, force: true });
  });

  it.skipIf(!hasChromium)('lists the parent and its child on the workflows page', async () => {
    await openUntilShown(`${uiUrl}/namespaces/default/workflows`, [rootId, childId, 'agentWorkflow']);
    await screenshot('01-workflow-list');
  });

  it.skipIf(!hasChromium)(
    'opens the parent from the `subagents ui` URL, with its static summary, details and the summaries of its activities and child',
    async () => {
      await page.goto(agentUiUrl({ baseUrl: uiUrl, namespace: 'default', agentId: rootId }), {
        waitUntil: 'domcontentloaded',
      });
      await page.waitForURL((url) => url.pathname.includes(rootRunId), { timeout: 30_000 });

      await openUntilShown(workflowPage(rootId, rootRunId, 'user-metadata'), [
        'general-purpose: Find the parser, with help', // static summary
        `Model ${rootModel}`, // static details
        'after 2 turns', // current details
        `model turn 1 · ${rootModel}`,
        `model turn 2 · ${rootModel}`,
        `Explore: ${childDescription}`, // the child workflow, by its static summary
      ]);
      await screenshot('02-parent-user-metadata');
    },
  );

  it.skipIf(!hasChromium)("shows the child workflow among the parent's relationships", async () => {
    const text = await openUntilShown(workflowPage(rootId, rootRunId, 'relationships'), [childId, 'Child Count']);
    expect(text).toContain(rootId);
    await screenshot('03-parent-relationships');
  });

  it.skipIf(!hasChromium)(
    "opens the child's page: its summary, its own activity summaries and the search attributes naming its parent",
    async () => {
      await openUntilShown(workflowPage(childId, childRunId, 'user-metadata'), [
        `Explore: ${childDescription}`,
        `model turn 1 · ${childModel}`,
        'Glob **/*.ts',
      ]);
      await screenshot('04-child-user-metadata');
      await openUntilShown(workflowPage(childId, childRunId, 'search-attributes'), [
        `"ParentAgentId": "${rootId}"`,
        `"RootAgentId": "${rootId}"`,
        '"AgentType": "Explore"',
        '"AgentDepth": 1',
      ]);
      await screenshot('05-child-search-attributes');
    },
  );

  it.skipIf(!hasChromium)(
    "shows a running model call's streamed text in its pending activity's heartbeat details (the screenshot in docs/cli.md)",
    async () => {
      const live = await subagents.startAgent({
        prompt: 'Explain the parser, slowly',
        name: 'ui-live',
        cwd: workspaceDir,
        model: rootModel,
      });
      try {
        let partial = '';
        const deadline = Date.now() + 90_000;
        while (!partial && Date.now() < deadline) {
          const details = (await live.live()).find((activity) => activity.details?.kind === 'model')?.details;
          if (details?.kind === 'model' && details.text.length > 0) partial = details.text;
          else await new Promise((resolve) => setTimeout(resolve, 250));
        }
        expect(partial.length).toBeGreaterThan(0);
        expect(liveText.startsWith(partial)).toBe(true);
        const runId = (await live.describe()).runId;
        await openUntilShown(workflowPage(live.agentId, runId, 'pending-activities'), [
          'callModel',
          'LIVE-TEXT streaming',
        ]);
        await screenshot('06-pending-activity-live-text');
        // The copy in docs/ changes only when asked for, so a test run leaves the checkout clean.
        if (process.env.UPDATE_DOCS_SCREENSHOTS === '1')
          await page.screenshot({ path: docsScreenshot, fullPage: false });
      } finally {
        await live.stop({ by: 'test', reason: 'screenshot taken' });
      }
    },
  );
});
