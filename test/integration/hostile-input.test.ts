// @slow
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { AgentHandle } from '../../src/client/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findTemporalCli } from '../../src/dev/temporal-cli';
import { useAgentTestEnv } from '../helpers/agent-env';
import { waitForState } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';

const env = useAgentTestEnv();

/** The fields each public signal's payload has: random objects use them with values of any type. */
const signalFields: Record<string, string[]> = {
  message: ['from', 'text'],
  steerSignal: ['text', 'by'],
  interrupt: ['by', 'reason'],
  stopNotice: ['by', 'reason'],
  childFinal: ['agentId', 'agentType', 'status', 'finalText', 'usage', 'treeUsage'],
  treeSpawnRequest: ['requestId', 'requesterId', 'childId'],
  treeSpawnReply: ['requestId', 'granted', 'reason'],
  treeAgentEvent: ['agentId', 'kind', 'usage', 'background'],
  treeAgentStarted: ['agentId', 'parentAgentId', 'background', 'depth', 'budgetCaps'],
  pauseSpawning: ['paused'],
  approvalRequest: ['requestId', 'agentId', 'tool', 'toolUseId'],
  approvalDecision: ['requestId', 'approved', 'always'],
  backgrounded: [],
  boardNotice: ['boardId', 'ownerAgentId', 'taskIds', 'text'],
  budgetReserve: ['request', 'requesterId', 'settle'],
  budgetGrant: ['reservationId', 'granted', 'outputTokens', 'reservedTokens'],
  budgetCharge: ['reservationId', 'agentId', 'model', 'attempt', 'usage', 'final'],
};

/** Random JSON: null, numbers, strings, arrays, and objects with the right field names holding values of the wrong types. */
function hostileValues(fields: string[], seed: number, hugeChars = 50_000): unknown[] {
  const wrongTyped =
    fields.length > 0 ? fc.dictionary(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 2 })) : fc.constant({});
  const values = fc.sample(
    fc.oneof(fc.jsonValue({ maxDepth: 3 }), wrongTyped, fc.constant(null), fc.constant([1, 2]), fc.constant('x')),
    {
      numRuns: 12,
      seed,
    },
  );
  return [null, undefined, {}, [1, 2], 5, 'x', 'x'.repeat(hugeChars), ...values];
}

const statusOf = async (agentId: string) =>
  env.temporal.client.workflow
    .getHandle(agentId)
    .describe()
    .then((description) => description.status.name);

/** An interactive agent, started and waiting for its first message. */
async function startWaiting(prompt: string, name: string): Promise<AgentHandle> {
  const handle = await env.start({ prompt, name, interactive: { idleTimeoutMs: 120_000 } });
  await waitForState(env, handle.agentId, 'waiting', 'the agent to wait for messages', 30_000);
  return handle;
}

describe('hostile input to a running agent', () => {
  it(
    'refuses random JSON on every public signal and update without wedging the agent, which then works normally',
    { timeout: 300_000 },
    async () => {
      const handle = await startWaiting('fuzz target ready', 'fuzz-target');
      const workflow = env.temporal.client.workflow.getHandle(handle.agentId);
      let seed = 42;
      for (const [name, fields] of Object.entries(signalFields)) {
        // One payload over the 1 MiB text limit (the history must stay readable: Temporal caps a payload at 2 MB).
        for (const value of hostileValues(fields, seed++, name === 'message' ? 1_200_000 : 50_000)) {
          await workflow.signal(name, value);
        }
      }
      // Updates refuse bad input to the caller with the reason; valid-looking ones may pass.
      for (const value of hostileValues(['text', 'by'], 7).slice(0, 8)) {
        const outcome = await workflow.executeUpdate('steer', { args: [value] }).catch((error: unknown) => error);
        if (outcome instanceof Error) {
          expect(outcome).toBeInstanceOf(WorkflowUpdateFailedError);
          expect((outcome as WorkflowUpdateFailedError).cause?.message).toMatch(/Invalid steer input|already finished/);
        }
      }
      for (const value of hostileValues(['requestId', 'approved'], 8).slice(0, 8)) {
        await expect(workflow.executeUpdate('answerApproval', { args: [value] })).rejects.toBeInstanceOf(
          WorkflowUpdateFailedError,
        );
      }
      for (const value of hostileValues(['caps', 'agentId'], 9).slice(0, 8)) {
        await expect(workflow.executeUpdate('setBudget', { args: [value] })).rejects.toBeInstanceOf(
          WorkflowUpdateFailedError,
        );
      }
      // The ledger kept nothing of it: no phantom account, nothing reserved.
      expect(
        (await handle.budget()).accounts.map((account) => [
          account.agentId,
          account.reservedTokens,
          account.subtree.tokens,
        ]),
      ).toEqual([[handle.agentId, 0, 0]]);
      await expect(workflow.query('conversation', null)).rejects.toThrow(/Invalid conversation query input/);

      const status = await handle.status();
      expect(status.rejectedInputs.count).toBeGreaterThan(100);
      expect(status.rejectedInputs.last).toMatchObject({ name: expect.any(String), reason: expect.any(String) });
      // Nothing reached the model as "undefined", no phantom nodes, and the agent still answers a real message.
      expect((await handle.tree()).nodes).toEqual([]);
      const before = env.modelServer
        .requests()
        .filter((request) => request.headers['x-subagents-agent-id'] === handle.agentId).length;
      await env.client.send(handle.agentId, 'REAL-MESSAGE-AFTER-FUZZ');
      await waitFor(
        () =>
          env.modelServer.requests().filter((request) => request.headers['x-subagents-agent-id'] === handle.agentId)
            .length > before,
        30_000,
        'the next model call',
      );
      const bodies = env.modelServer
        .requests()
        .filter((request) => request.headers['x-subagents-agent-id'] === handle.agentId)
        .map((request) => request.rawBody);
      expect(bodies.join('\n')).not.toContain('from=\\"undefined\\"');
      expect(bodies.join('\n')).toContain('REAL-MESSAGE-AFTER-FUZZ');
      await handle.close();
      expect((await handle.result()).status).toBe('completed');
      expect(status.rejectedInputs.count).toBeLessThanOrEqual((await handle.status()).rejectedInputs.count);
      const history = await workflow.fetchHistory();
      expect((history.events ?? []).filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    },
  );

  it('survives `temporal workflow signal --input null`; status and stop still work from the CLI', async () => {
    const handle = await startWaiting('null target', 'null-target');
    const temporal = findTemporalCli()!;
    const run = promisify(execFile);
    for (const name of [
      'message',
      'steerSignal',
      'interrupt',
      'approvalDecision',
      'treeSpawnReply',
      'childFinal',
      'pauseSpawning',
      'treeAgentEvent',
      'approvalRequest',
    ]) {
      await run(temporal, [
        'workflow',
        'signal',
        '--address',
        env.temporal.address,
        '--workflow-id',
        handle.agentId,
        '--name',
        name,
        '--input',
        'null',
      ]);
    }
    const cli = path.join(import.meta.dirname, '..', '..', 'bin', 'subagents.js');
    const cliEnv = { ...process.env, TEMPORAL_ADDRESS: env.temporal.address, SUBAGENTS_TASK_QUEUE: env.taskQueue };
    const status = await run(process.execPath, [cli, 'status', handle.agentId, '--json'], {
      env: cliEnv,
      encoding: 'utf8',
    });
    expect(JSON.parse(status.stdout).rejectedInputs.count).toBe(8);
    await run(process.execPath, [cli, 'stop', handle.agentId, '--reason', 'fuzzed'], { env: cliEnv, encoding: 'utf8' });
    await waitFor(async () => (await statusOf(handle.agentId)) === 'CANCELLED', 30_000, 'the agent to be cancelled');
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    expect((history.events ?? []).filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
  });

  it('a stop notice that is not an object is refused: a stop after it says who stopped the agent, never "undefined"', async () => {
    const handle = await startWaiting('notice target', 'notice-target');
    const workflow = env.temporal.client.workflow.getHandle(handle.agentId);
    await workflow.signal('stopNotice', 'x');
    await workflow.signal('stopNotice', { by: 5 });
    await workflow.cancel();
    await expect(handle.result()).rejects.toThrow();
    const result = (await handle.status()).result!;
    expect(result.status).toBe('cancelled');
    expect(result.error).toBe('stopped by a cancellation request: the workflow was cancelled');
    expect((await handle.status()).rejectedInputs.count).toBe(2);
  });
});
