// @slow
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { uniqueTaskQueue } from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { agentPrompted } from '../helpers/scripted-agents';

/** The examples (examples/README.md) as a user runs them: the worker example in one process, the client example in another. */
const run = promisify(execFile);
const repository = path.resolve(import.meta.dirname, '..', '..');
let modelServer: ModelServer;
let worker: ChildProcess;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  modelServer = await startModelServer({
    port: 0,
    behaviour: scenario([
      agentPrompted('Triage ticket', [
        { toolUses: [{ name: 'lookup_ticket', input: { id: 'T-1001' } }] },
        { text: 'T-1001, login 500 after reset: high priority, web team.' },
      ]),
      // The steering message is the newest user text of the request after it arrives: the same turns, by the agent's turn number.
      agentPrompted('Answer in one line', [
        { toolUses: [{ name: 'lookup_ticket', input: { id: 'T-1001' } }] },
        { text: 'T-1001, login 500 after reset: high priority, web team.' },
      ]),
    ]),
  });
  env = {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    SUBAGENTS_TASK_QUEUE: uniqueTaskQueue('examples'),
    ANTHROPIC_BASE_URL: modelServer.url,
    ANTHROPIC_API_KEY: 'test-key',
    EXAMPLE_MODEL: 'claude-test-tiny',
  };
  worker = spawn(process.execPath, ['--import', 'tsx', 'examples/worker.ts'], {
    cwd: repository,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    worker.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('example worker:')) resolve();
    });
    worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.on('exit', (code) => reject(new Error(`the example worker exited (${code}):\n${output}`)));
  });
}, 180_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await modelServer?.close();
});

const lastJson = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').pop()!) as { status: string; finalText: string; toolUses: number };

describe('examples', () => {
  it("the client starts the project's agent type on the example worker, follows, steers and prints the result", async () => {
    modelServer.clearRequests();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/client.ts', 'Triage ticket T-1001'], {
      cwd: repository,
      env,
    });
    expect(stdout, stdout).toMatch(/^started agent-/);
    expect(lastJson(stdout), stdout).toMatchObject({ status: 'completed' });
    expect(stdout).toMatch(/steered \(queued at turn \d+\)/);
    expect(stdout).toMatch(/turn \d+: /);
    expect(lastJson(stdout), stdout).toMatchObject({
      status: 'completed',
      finalText: 'T-1001, login 500 after reset: high priority, web team.',
      toolUses: 1,
    });
    // The custom tool ran on the worker (its result reached the model), and so did the steering message.
    const bodies = modelServer
      .requests()
      .map((request) => request.rawBody)
      .join('\n');
    expect(bodies).toContain('Login page returns 500 after password reset');
    expect(bodies).toContain('Answer in one line and name the priority.');
  });

  it('the client stops the agent when asked', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'examples/client.ts', '--stop', 'Triage ticket T-1002'],
      { cwd: repository, env },
    );
    expect(stdout).toContain('stop requested');
    expect(lastJson(stdout).status).toBe('cancelled');
  });
});
