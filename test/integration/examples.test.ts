// @slow
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { uniqueTaskQueue } from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { agentOfType, agentPrompted, spawn as spawnCall } from '../helpers/scripted-agents';

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
      // examples/agent-sdk: the SDK program's code-reviewer, a blocked command, an approved one.
      agentPrompted('Review src/add.js', [
        { toolUses: [spawnCall('review add.js', 'Find the bugs of the adder', { subagent_type: 'code-reviewer' })] },
        { text: 'Review: {{last_tool_result}}' },
      ]),
      agentOfType('code-reviewer', [
        { toolUses: [{ name: 'Read', input: { file_path: 'src/add.js' } }] },
        { toolUses: [{ name: 'Bash', input: { command: 'rm -rf build', description: 'clean' } }] },
        { toolUses: [{ name: 'Bash', input: { command: 'node --test', description: 'run the tests' } }] },
        { text: 'src/add.js line 3: add() returns left - right; it must return left + right.' },
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

  it("agent-sdk runs an SDK program's agents and command hooks unchanged, with canUseTool and task messages", async () => {
    modelServer.clearRequests();
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'examples/agent-sdk/run.ts', 'Review src/add.js'],
      {
        cwd: repository,
        env,
      },
    );
    const final = JSON.parse(stdout.trim().split('\n').pop()!) as {
      agentId: string;
      status: string;
      finalText: string;
    };
    expect(final, stdout).toMatchObject({ status: 'completed' });
    expect(final.finalText).toContain('add() returns left - right');
    const tasks = stdout
      .split('\n')
      .filter((line) => line.startsWith('task: '))
      .map((line) => JSON.parse(line.slice('task: '.length)) as Record<string, unknown>);
    const child = `${final.agentId}.1`;
    expect(tasks[0]).toMatchObject({ subtype: 'task_started', task_id: child, subagent_type: 'code-reviewer' });
    expect(tasks.at(-1)).toMatchObject({ subtype: 'task_notification', task_id: child, status: 'completed' });
    // The PreToolUse hook blocked `rm -rf` before anyone was asked; canUseTool allowed the test run, asked by the subagent.
    expect(stdout).toContain(`canUseTool: Bash "node --test" from ${child}: allow`);
    expect(stdout).not.toContain('canUseTool: Bash "rm -rf build"');
    const bodies = modelServer
      .requests()
      .map((request) => request.rawBody)
      .join('\n');
    expect(bodies).toContain('Blocked by guard-bash');
    expect(bodies).toContain('senior code reviewer');
    // PostToolUse logged each successful call with the agent that made it (the failing test run is not one), Stop the root's end.
    expect(stdout).toMatch(new RegExp(`PostToolUse Read ${child.replace(/[.-]/g, '\\$&')}`));
    expect(stdout).toMatch(/\nStop - root\n/);
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
