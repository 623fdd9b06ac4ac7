// @slow
/**
 * README's workflow demo as a user runs it (docs/workflows.md): `subagents demo --exit --prompt "Run a workflow review …"`
 * as a real process on the test run's Temporal server. The demo model's lead lists the folders, writes the bundled review
 * script (examples/workflows/review.js) into its Workflow tool, the run's agents read, check and synthesise as child
 * workflows of the run, and the lead answers from the run's task notification.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scriptRunWorkflowType } from '../../src/shared/scripts/script-run';
import { readmeBlock } from '../helpers/readme';

const cli = path.join(import.meta.dirname, '..', '..', 'bin', 'subagents.js');
const prompt = 'Run a workflow review of this repository.';
let work: string;
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'script-demo-')));
  // src/alpha.ts and lib/gamma.js have no test anywhere (confirmed); lib/delta.js has one in test/ (refuted).
  const files: Record<string, string> = {
    'repo/src/alpha.ts': 'export const alpha = 1;\n',
    'repo/src/beta.ts': 'export const beta = 2;\n',
    'repo/src/beta.test.ts': "import { beta } from './beta';\n",
    'repo/lib/gamma.js': 'module.exports = 3;\n',
    'repo/lib/delta.js': 'module.exports = 4;\n',
    'repo/test/delta.test.ts': "require('../lib/delta');\n",
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), text);
  }
  mkdirSync(path.join(work, 'home'));
  connection = await Connection.connect({ address: inject('temporalAddress') });
  temporal = new Client({ connection });
});

afterAll(async () => {
  await connection?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `subagents demo --exit` with the review prompt, in the temporary repository, on the test's server and the local model. */
async function runDemo(): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // No saved scripts of the real user: the lead writes the example inline.
    HOME: path.join(work, 'home'),
    SUBAGENTS_FROM_SOURCES: '1',
  };
  // With a key the demo would call the real API.
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_BASE_URL;
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [cli, 'demo', '--exit', '--prompt', prompt, '--cwd', path.join(work, 'repo')],
      { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the workflow demo', () => {
  it("is README's command", () => {
    const [line] = readmeBlock(path.join(import.meta.dirname, '..', '..'), '## Orchestration scripts');
    expect(line).toBe(`npm run demo -- --exit --prompt "${prompt}"`);
  });

  it('writes the review script, runs its agents as children of the run, and answers from its result', async () => {
    const demo = await runDemo();
    expect(demo.code, `${demo.stdout}\n${demo.stderr}`).toBe(0);
    const leadId = /• Agent (\S+) started/.exec(demo.stdout)?.[1];
    expect(leadId, demo.stdout).toBeDefined();
    const runId = `${leadId}.1`;

    // The run's view, printed after the lead's lines: 3 readers (lib, src, test), 3 checkers, 1 synthesis.
    expect(demo.stdout).toContain(`${runId}  review — Review a repository`);
    expect(demo.stdout).toMatch(/status: completed · 7\/7 agents · /);
    expect(demo.stdout).toMatch(/^ {2}Read: 3\/3 · /m);
    expect(demo.stdout).toMatch(/^ {2}Check: 3\/3 · /m);
    expect(demo.stdout).toMatch(/^ {2}Synthesize: 1\/1 · /m);
    // The lead's answer: the run's counts and the synthesis of the confirmed findings only.
    expect(demo.stdout).toContain('The review workflow finished: 2 finding(s) confirmed, 1 refuted.');
    expect(demo.stdout).toContain('Review report: 2 confirmed finding(s) in 2 folder(s).');
    expect(demo.stdout).toMatch(/^- src\/alpha\.ts has no test file/m);
    expect(demo.stdout).toMatch(/^- lib\/gamma\.js has no test file/m);
    expect(demo.stdout).not.toMatch(/^- lib\/delta\.js/m);

    // On Temporal: the run is a scriptRunWorkflow, child of the lead; its agents are its children `<runId>.<n>`.
    const run = await temporal.workflow.getHandle(runId).describe();
    expect(run.type).toBe(scriptRunWorkflowType);
    expect(run.status.name).toBe('COMPLETED');
    expect(run.parentExecution?.workflowId).toBe(leadId);
    for (let call = 1; call <= 7; call++) {
      const agent = await temporal.workflow.getHandle(`${runId}.${call}`).describe();
      expect(agent.status.name).toBe('COMPLETED');
      expect(agent.parentExecution?.workflowId).toBe(runId);
    }
    await expect(temporal.workflow.getHandle(`${runId}.8`).describe()).rejects.toThrow();
  }, 240_000);
});
