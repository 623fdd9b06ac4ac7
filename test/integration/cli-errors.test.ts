// @slow
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentTestEnv, scenario, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted, waitForState } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { runCli } from '../helpers/cli-process';
import { agentNamed, agentPrompted, bash, spawn } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** Runs the real CLI; resolves with its exit code and output (never rejects). */
const subagents = (args: string[], extraEnv: Record<string, string> = {}) => runCli(env, args, { extraEnv });

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m);

describe('the CLI with bad input and unreachable or finished agents', () => {
  it('answers an unknown flag with exit 2 and the command usage, not a stack trace', async () => {
    const run = await subagents(['status', 'agent-x', '--bogus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown option '--bogus'");
    expect(run.stderr).toContain('usage: subagents status <agentId>');
    noStackTrace(run.stderr);
  });

  it('refuses a worker setting it cannot take before connecting: one line, exit 2, saying what to give', async () => {
    for (const value of ['deep', '10', 'full; rm -rf /']) {
      // An address nobody serves: the worker stops on the setting, never reaching the connection.
      const run = await subagents(['worker'], {
        SUBAGENTS_WORKFLOW_STACKS: value,
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      });
      expect(run.code, value).toBe(2);
      expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
      expect(run.stderr).toContain(`SUBAGENTS_WORKFLOW_STACKS=${JSON.stringify(value)}: give "short"`);
      noStackTrace(run.stderr);
    }
  });

  it(
    'a taken port is one line naming the address and the flags that change it, exit 3 (dev, demo, model-server)',
    { timeout: 180_000 },
    async () => {
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      const port = (holder.address() as net.AddressInfo).port;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-ports-'));
      try {
        const withoutServer = { TEMPORAL_ADDRESS: '' };
        const dev = await subagents(
          ['dev', '--port', String(port), '--ui-port', '0', '--db', path.join(dir, 'dev.db')],
          withoutServer,
        );
        expect(dev.code).toBe(3);
        expect(dev.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(
            new RegExp(
              `^subagents dev: 127\\.0\\.0\\.1:${port} is already in use by something that is not a Temporal dev server.*--port N.*--ui-port N`,
            ),
          ),
        ]);
        const demoModel = await subagents(['demo', '--exit', '--model-port', String(port)], withoutServer);
        expect(demoModel.code).toBe(3);
        expect(demoModel.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(
            new RegExp(`^subagents demo: 127\\.0\\.0\\.1:${port} is already in use.*--model-port N`),
          ),
        ]);
        const demoBadPort = await subagents(['demo', '--exit', '--port', '70000'], withoutServer);
        expect(demoBadPort.code).toBe(2);
        expect(demoBadPort.stderr).toContain('--port must be a port number from 1 to 65535 (got "70000")');
        const model = await subagents(['model-server', '--port', String(port)]);
        expect(model.code).toBe(3);
        expect(model.stderr.trim()).toMatch(
          new RegExp(`^subagents model-server: 127\\.0\\.0\\.1:${port} is already in use .*--port N`),
        );
        expect(model.stderr).not.toContain('    at ');
      } finally {
        holder.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('prints a Temporal error as one line with what to check, exit 3', async () => {
    const run = await subagents(['ls'], { TEMPORAL_NAMESPACE: 'no-such-namespace' });
    expect(run.code).toBe(3);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('no-such-namespace');
    expect(run.stderr).toContain('Check that the server runs');
    noStackTrace(run.stderr);
  });

  it('says a finished agent has finished (exit 1), treats stop of it as done, and a missing one as missing (exit 4)', async () => {
    const { handle } = await runCompleted(env, { prompt: 'finish quickly', name: 'finished-one' });
    for (const command of [
      ['interrupt', handle.agentId],
      ['approve', handle.agentId, 'some-request'],
    ]) {
      const run = await subagents(command);
      expect(run.code, command[0]).toBe(1);
      expect(run.stderr, command[0]).toContain(`Agent ${handle.agentId} has already finished (completed)`);
      noStackTrace(run.stderr);
    }
    const steer = await subagents(['steer', handle.agentId, 'too late']);
    expect(steer.code).toBe(1);
    expect(steer.stderr).toContain(
      `Agent ${handle.agentId} has already finished; the steer was not delivered (it ended completed)`,
    );
    const stop = await subagents(['stop', handle.agentId]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain('has already finished (completed); nothing to stop');
    const missing = await subagents(['interrupt', 'agent-does-not-exist']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('No agent "agent-does-not-exist"');
    // Every command words an unknown agent the same way.
    for (const args of [
      ['ls', '--tree', 'agent-nope'],
      ['status', 'agent-nope'],
    ]) {
      const unknown = await subagents(args);
      expect(unknown.code, args.join(' ')).toBe(4);
      expect(unknown.stderr, args.join(' ')).toContain('No agent "agent-nope"');
      expect(unknown.stderr).not.toContain('workflow not found');
    }
  });

  it('stop waits for the tree to close, notices one that does not, and --force terminates it and its subtree', async () => {
    const stuck = await createAgentTestEnv({ kind: 'echo' });
    try {
      stuck.modelServer.setBehaviour(
        scenario([
          agentNamed('stuck-root', [{ toolUses: [spawn('child', 'stuck child task')] }]),
          agentPrompted('stuck child task', [{ toolUses: [bash('sleep 30')] }]),
        ]),
      );
      const handle = await stuck.start({ prompt: 'a tree to get stuck', name: 'stuck-root' });
      const childId = `${handle.agentId}.1`;
      await waitForState(stuck, childId, 'running_tools', 'the child to run');
      // No worker any more: nobody can process the cancellation, as with a workflow stuck on a bug.
      stuck.worker.shutdown();
      await waitFor(async () => stuck.worker.getState() === 'STOPPED', 60_000, 'the worker to stop');
      const cliEnv = { SUBAGENTS_TASK_QUEUE: stuck.taskQueue };
      const waited = await subagents(['stop', handle.agentId, '--wait', '2', '--reason', 'try'], cliEnv);
      expect(waited.code).toBe(1);
      expect(waited.stderr).toContain(`${handle.agentId} has not closed 2 s after the stop request`);
      expect(waited.stderr).toContain(`subagents stop ${handle.agentId} --force`);
      const forced = await subagents(['stop', handle.agentId, '--force', '--reason', 'wedged'], cliEnv);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain(childId);
      for (const id of [handle.agentId, childId]) {
        expect((await stuck.temporal.client.workflow.getHandle(id).describe()).status.name).toBe('TERMINATED');
      }
      const history = await stuck.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
      const terminated = history.events?.find((event) => event.workflowExecutionTerminatedEventAttributes);
      expect(terminated?.workflowExecutionTerminatedEventAttributes?.reason).toBe('force-stopped by user: wedged');
    } finally {
      await stuck.close();
    }
  });

  it('demo runs on the server TEMPORAL_ADDRESS names instead of starting its own', { timeout: 300_000 }, async () => {
    const run = await subagents([
      'demo',
      '--exit',
      '--prompt',
      'List the top-level files of this repository in one sentence.',
    ]);
    expect(run.stdout).toContain(`• Temporal: ${env.temporal.address} (TEMPORAL_ADDRESS)`);
    expect(run.stdout).not.toContain('starting or reusing');
    const agentId = /Agent (agent-[\w-]+) started/.exec(run.stdout)?.[1];
    expect(agentId).toBeDefined();
    // The run is on the test server: it knows the agent.
    expect((await env.temporal.client.workflow.getHandle(agentId!).describe()).status.name).toBe('COMPLETED');
    expect(run.code).toBe(0);
  });
});
