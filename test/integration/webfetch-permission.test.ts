/** WebFetch asks per domain as Claude Code does (docs/security.md, "WebFetch"), on a real Temporal server with a scripted model. */
import { mkdtempSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrivateAllowance } from '../../src/shared/policy/address-policy';
import { createAgentTestEnv, modelCallsOf, writeProject, type AgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentOfType, agentPrompted, spawnInBackground } from '../helpers/scripted-agents';

let env: AgentTestEnv;
let site: Server;
let siteUrl: string;
let pagesServed = 0;
const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'webfetch-permission-home-')));

beforeAll(async () => {
  site = createServer((_request, response) => {
    pagesServed += 1;
    response.writeHead(200, { 'content-type': 'text/plain' }).end('Release 7 ships MCP support.');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // WebFetch may reach this machine's test server only because the worker is configured to allow it.
  env = await createAgentTestEnv(
    { kind: 'echo' },
    { homeDir, web: { allowPrivateAddresses: parsePrivateAllowance('127.0.0.1') } },
  );
});

afterAll(async () => {
  await env?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

const fetchTurn = (page: string) => ({
  toolUses: [{ name: 'WebFetch', input: { url: `${siteUrl}/${page}`, prompt: 'What ships?' } }],
});

/** The tool results the agent's model saw, in order. */
function toolResults(agentId: string): Array<{ content: string; is_error?: boolean }> {
  const last = JSON.parse(modelCallsOf(env.modelServer, agentId).at(-1)!.rawBody) as {
    messages: Array<{ content: unknown }>;
  };
  return last.messages
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((block: { type: string }) => block.type === 'tool_result');
}

describe('WebFetch permission by domain', () => {
  it('in default mode a new domain waits for a person; "always" approves that domain for the tree', async () => {
    env.script(
      agentOfType('WebFetch', [{ text: 'Release 7 ships MCP support.' }]),
      agentNamed('fetch-ask', [fetchTurn('first'), fetchTurn('second'), { text: 'done' }]),
    );
    const served = pagesServed;
    const handle = await env.start({
      prompt: 'read the changelog',
      name: 'fetch-ask',
      cwd: writeProject(env.workspace, 'ask', {}),
      permissionMode: 'default',
    });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, 'the approval request of WebFetch');
    const [request] = await handle.approvals();
    expect(request!.tool).toBe('WebFetch');
    expect(request!.inputSummary).toMatch(/^WebFetch domain 127\.0\.0\.1: /);
    expect(request!.permission).toBe('WebFetch(domain:127.0.0.1)');
    // Nothing was fetched while the request waits.
    expect(pagesServed).toBe(served);
    await handle.answerApproval(request!.requestId, { approve: true, always: true });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    // The second fetch to the same domain ran without a second request.
    expect(pagesServed).toBe(served + 2);
    const results = toolResults(handle.agentId);
    expect(results).toHaveLength(2);
    for (const fetched of results) expect(fetched.is_error, fetched.content).toBeFalsy();
    expect(result.toolUses).toBe(2);
  });

  it('a background agent gets its answer through the approval route (auto-denied by default), never a silent allow', async () => {
    env.script(
      agentNamed('fetch-background', [
        { toolUses: [spawnInBackground('fetcher', 'background fetch task')] },
        { text: 'waiting' },
        { text: 'root got: {{last_user_text}}' },
      ]),
      agentPrompted('background fetch task', [fetchTurn('background'), { text: 'fetcher saw: {{last_tool_result}}' }]),
    );
    const served = pagesServed;
    const { result } = await runCompleted(env, {
      prompt: 'fetch in the background',
      name: 'fetch-background',
      cwd: writeProject(env.workspace, 'background', {}),
      permissionMode: 'default',
    });
    expect(result.finalText).toContain('background agents cannot ask a person');
    expect(pagesServed).toBe(served);
  });

  it('a WebFetch(domain:…) allow rule lets the fetch through without asking; dontAsk denies an unlisted domain', async () => {
    env.script(
      agentOfType('WebFetch', [{ text: 'Release 7 ships MCP support.' }]),
      agentNamed('fetch-rule', [fetchTurn('ruled'), { text: 'done' }]),
      agentNamed('fetch-dont-ask', [fetchTurn('refused'), { text: 'done' }]),
    );
    const served = pagesServed;
    const ruled = writeProject(env.workspace, 'rule', {
      '.claude/settings.json': JSON.stringify({ permissions: { allow: ['WebFetch(domain:127.0.0.1)'] } }),
    });
    const { handle: allowed } = await runCompleted(env, {
      prompt: 'read the changelog',
      name: 'fetch-rule',
      cwd: ruled,
      permissionMode: 'default',
    });
    expect(pagesServed).toBe(served + 1);
    expect(toolResults(allowed.agentId)[0]!.is_error).toBeFalsy();

    const { handle: denied } = await runCompleted(env, {
      prompt: 'read the changelog',
      name: 'fetch-dont-ask',
      cwd: writeProject(env.workspace, 'dont-ask', {}),
      permissionMode: 'dontAsk',
    });
    expect(pagesServed).toBe(served + 1);
    const [refusal] = toolResults(denied.agentId);
    expect(refusal!.is_error).toBe(true);
    expect(refusal!.content).toContain(
      'WebFetch to 127.0.0.1 needs a person to approve its domain, and this agent runs in dontAsk mode',
    );
  });
});
