// @slow
/**
 * Leases of the tree's budget on the real server (docs/budgets.md, Leases): a child spends leased room on its
 * calls without a round trip to the root; the root asks a lease back when caps change or the budget gets
 * tight; cut and failed calls of a lease are counted as served; a tight budget still holds.
 */
import type proto from '@temporalio/proto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServedTotals } from '../../src/model-server/served';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { accountOf, cutAfterServing, rootAccount, servedToTree } from '../helpers/budget-accounts';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash } from '../helpers/scripted-agents';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const env = useAgentTestEnv();

async function historyOf(workflowId: string): Promise<HistoryEvent[]> {
  return ((await env.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) as HistoryEvent[];
}

/** The JSON payload of a signal received or sent, parsed. */
function payloadOf(event: HistoryEvent): Record<string, unknown> | undefined {
  const payload =
    event.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0] ??
    event.signalExternalWorkflowExecutionInitiatedEventAttributes?.input?.payloads?.[0];
  return payload?.data ? (JSON.parse(Buffer.from(payload.data).toString()) as Record<string, unknown>) : undefined;
}

/** What one agent's history shows of its budget traffic. */
async function trafficOf(agentId: string) {
  const events = await historyOf(agentId);
  const sent = (name: string) =>
    events.filter((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === name);
  const grants = events
    .filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'budgetGrant')
    .map((event) => payloadOf(event)!);
  const calls = events.filter(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
  );
  const budgetOf = (event: HistoryEvent) => {
    const payload = event.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
    return payload?.data
      ? (JSON.parse(Buffer.from(payload.data).toString()) as { budget?: { leaseId?: string } }).budget
      : undefined;
  };
  return {
    modelCalls: calls.length,
    leasedCalls: calls.filter((event) => budgetOf(event)?.leaseId !== undefined).length,
    reserves: sent('budgetReserve').length,
    leases: grants.filter((grant) => grant.granted === true && grant.leaseId === grant.reservationId).length,
    revokes: grants.filter((grant) => grant.revoked === true).length,
  };
}

const worker = (prompt: string) => ({
  name: 'Agent',
  input: { description: prompt.toLowerCase(), prompt, run_in_background: true },
});

describe('leases of the tree budget on the real server', () => {
  it('spends leased room without asking the root for each call, and gives the rest back at the end', async () => {
    const name = 'lease-plenty';
    env.script(
      agentNamed(name, [
        { toolUses: [worker('LEASE-A'), worker('LEASE-B')] },
        ...Array.from({ length: 4 }, () => ({ text: 'noted' })),
      ]),
      agentPrompted('LEASE-', [
        ...Array.from({ length: 6 }, () => ({ toolUses: [bash('echo step')] })),
        { text: 'LEASE-DONE' },
      ]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'two workers',
      name,
      limits: { budget: { caps: { tokens: 50_000_000 } } },
    });
    for (const childId of [`${handle.agentId}.1`, `${handle.agentId}.2`]) {
      await waitFor(
        async () => (await env.client.getAgent(childId).status()).result !== undefined,
        60_000,
        `${childId} ended`,
      );
      const traffic = await trafficOf(childId);
      expect(traffic.modelCalls).toBe(7);
      expect(traffic.leasedCalls).toBe(7);
      expect(traffic.leases).toBe(1);
      // One request made the lease; the calls spent it without asking (a top-up at most besides).
      expect(traffic.reserves).toBeLessThanOrEqual(2);
    }
    const snapshot = await handle.budget();
    expect(rootAccount(snapshot).subtree.tokens).toBe(servedToTree(env.modelServer, handle.agentId));
    expect(accountOf(snapshot, `${handle.agentId}.1`)!.own.turns).toBe(7);
    expect(accountOf(snapshot, `${handle.agentId}.2`)!.own.turns).toBe(7);
    expect(rootAccount(snapshot).reservedTokens).toBe(0);
    expect(snapshot.leases).toEqual({ held: 0, tokens: 0 });
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'budget-lease-child');
  }, 180_000);

  it('asks a lease back when a cap is set on the running subtree, which then holds', async () => {
    const name = 'lease-capped';
    env.script(
      agentNamed(name, [
        { toolUses: [worker('LEASED-WORKER')] },
        ...Array.from({ length: 60 }, () => ({
          text: 'ROOT-WAITS',
          toolUses: [bash('sleep 0.3')],
        })),
      ]),
      agentPrompted('LEASED-WORKER', [
        ...Array.from({ length: 2 }, () => ({ toolUses: [bash('echo leased')] })),
        {
          toolUses: [bash('until [ -f lease-cap-set ]; do sleep 0.1; done; echo leased')],
        },
        ...Array.from({ length: 27 }, () => ({
          toolUses: [bash('echo leased')],
          delayMs: 150,
        })),
      ]),
    );
    const handle = await env.start({
      prompt: 'one worker',
      name,
      limits: { budget: { caps: { tokens: 50_000_000 } } },
    });
    const childId = `${handle.agentId}.1`;
    // The worker holds a lease and has spent some of it.
    await waitFor(
      async () => {
        const snapshot = await handle.budget();
        return (snapshot.leases?.held ?? 0) >= 1 && (accountOf(snapshot, childId)?.own.toolCalls ?? 0) >= 2;
      },
      60_000,
      'the worker spends a lease',
    );
    const madeBefore = accountOf(await handle.budget(), childId)!.own.toolCalls;
    const cap = madeBefore + 2;
    await handle.setBudget({ toolCalls: cap }, { agentId: childId });
    writeFileSync(path.join(env.workspace, 'lease-cap-set'), '');
    await waitFor(
      async () => (await env.client.getAgent(childId).status()).result !== undefined,
      60_000,
      'the worker ended',
    );
    const childResult = (await env.client.getAgent(childId).status()).result!;
    expect(childResult.error).toContain(`stopped by budget: the subtree of ${childId}'s budget of ${cap} tool calls`);
    const snapshot = await handle.budget();
    // The call in flight when the lease was asked back may finish; none starts after it without asking.
    expect(accountOf(snapshot, childId)!.own.toolCalls).toBeLessThanOrEqual(cap + 1);
    expect((await trafficOf(childId)).revokes).toBe(1);
    await handle.stop({ reason: 'test over' });
    await handle.result().catch(() => undefined);
    const ended = await handle.budget();
    expect(ended.leases).toEqual({ held: 0, tokens: 0 });
    // The leased agent's account is what it was served (the root's own call cut by this stop is counted by its estimate).
    const servedToChild = (env.modelServer.usage().byAgent as Record<string, ServedTotals>)[childId]!.totalTokens;
    expect(accountOf(ended, childId)!.own.tokens).toBe(servedToChild);
    await recordHistory(env.temporal.client, childId, 'budget-lease-revoked-child');
    await recordHistory(env.temporal.client, handle.agentId, 'budget-lease-revoked-root');
  }, 180_000);

  it('holds a budget that leases run into: leases shrink, are asked back, and calls reserve exactly', async () => {
    const name = 'lease-crossing';
    // Four children whose calls grow (each answer ~1,000 tokens and stays in the conversation).
    env.script(
      agentNamed(name, [
        { toolUses: Array.from({ length: 4 }, (_, index) => worker(`CROSSING-${index}`)) },
        ...Array.from({ length: 80 }, () => ({
          text: 'ROOT-WAITS',
          toolUses: [bash('sleep 0.5')],
        })),
      ]),
      {
        match: { userIncludes: 'CROSSING-' },
        turns: Array.from({ length: 60 }, (_, index) => ({
          text: `WORKING-${index} ${'lorem ipsum dolor sit amet '.repeat(150)}`,
          toolUses: [bash('echo step')],
          delayMs: 100,
        })),
      },
    );
    const budget = 700_000;
    const handle = await env.start({ prompt: 'four workers', name, limits: { budget: { caps: { tokens: budget } } } });
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(result.error).toContain(`stopped by budget: the tree's budget of ${budget.toLocaleString('en-US')} tokens`);
    const served = servedToTree(env.modelServer, handle.agentId);
    const snapshot = await handle.budget();
    expect(served).toBeLessThanOrEqual(budget * 1.05);
    expect(rootAccount(snapshot).subtree.tokens).toBe(served);
    expect(rootAccount(snapshot).reservedTokens).toBe(0);
    const traffic = await Promise.all([1, 2, 3, 4].map((index) => trafficOf(`${handle.agentId}.${index}`)));
    // Leases were used while there was room; near the budget, calls reserved exactly.
    expect(traffic.reduce((sum, child) => sum + child.leases, 0)).toBeGreaterThanOrEqual(2);
    expect(traffic.reduce((sum, child) => sum + child.leasedCalls, 0)).toBeGreaterThanOrEqual(4);
  }, 240_000);

  it('counts leased calls cut by a stop and calls that failed after message_start exactly as served', async () => {
    const name = 'lease-cut';
    env.script(
      agentNamed(name, [
        { toolUses: Array.from({ length: 4 }, (_, index) => worker(`CUT-${index}`)) },
        ...Array.from({ length: 40 }, () => ({
          text: 'ROOT-WAITS',
          toolUses: [bash('sleep 0.5')],
        })),
      ]),
      {
        match: { userIncludes: 'CUT-' },
        turns: Array.from({ length: 30 }, (_, index) => ({
          text: `STREAMING-${index} ${'lorem ipsum '.repeat(60)}`,
          toolUses: [bash('echo step')],
          eventDelayMs: 150,
        })),
      },
    );
    // Cut the third calls of two workers (leased by then): untargeted, the root's own calls could take both cuts.
    const agentId = `lease-cut-${env.taskQueue}`;
    for (const child of [1, 2])
      env.modelServer.injectFault({ kind: 'stream-cut', match: { agentId: `${agentId}.${child}`, turnIndex: 2 } });
    const handle = await env.start({
      agentId,
      prompt: 'four workers',
      name,
      limits: { budget: { caps: { tokens: 50_000_000 } } },
    });
    // Both targeted third calls must have been made before the stop (turns may be slow: each runs a Bash).
    const thirdCallMade = (child: number) =>
      env.modelServer.requests().filter((request) => request.headers['x-subagents-agent-id'] === `${agentId}.${child}`)
        .length >= 3;
    await waitFor(
      async () => (rootAccount(await handle.budget()).subtree.turns ?? 0) >= 10 && thirdCallMade(1) && thirdCallMade(2),
      150_000,
      'the workers make calls',
    );
    await handle.stop({ reason: 'test over' });
    await handle.result().catch(() => undefined);
    const served = servedToTree(env.modelServer, handle.agentId);
    const requests = env.modelServer
      .requests()
      .filter(
        (request) =>
          request.path === '/v1/messages' && request.headers['x-subagents-agent-id']?.startsWith(`${handle.agentId}.`),
      );
    expect(cutAfterServing(requests)).toBeGreaterThanOrEqual(2);
    const snapshot = await handle.budget();
    // A stream the stop cuts can have deltas written by the server after its client stopped reading (the server learns of
    // the abort later, more so on a loaded machine: 122 tokens over six streams in one CI run). A lost charge would be a
    // whole call's input, thousands of tokens: the bound stays far below that.
    const cutStreams = env.modelServer
      .requests()
      .filter(
        (request) =>
          request.path === '/v1/messages' &&
          request.headers['x-subagents-agent-id']?.startsWith(handle.agentId) &&
          request.served &&
          !request.served.complete,
      ).length;
    expect(Math.abs(rootAccount(snapshot).subtree.tokens - served)).toBeLessThanOrEqual(64 * cutStreams);
    expect(snapshot.leases).toEqual({ held: 0, tokens: 0 });
    const traffic = await Promise.all([1, 2, 3, 4].map((index) => trafficOf(`${handle.agentId}.${index}`)));
    expect(traffic.every((child) => child.leases >= 1)).toBe(true);
  }, 240_000);
});
