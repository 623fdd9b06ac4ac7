// @slow
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenario, useAgentTestEnv } from '../helpers/agent-env';
import { cutAfterServing, rootAccount, servedToTree } from '../helpers/budget-accounts';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** A root that starts `children` background children in one turn; each makes slow calls, a short Bash between, and never ends on its own. */
function fanOut(name: string, children: number, childTurn: { delayMs?: number; eventDelayMs?: number }) {
  return scenario([
    agentNamed(name, [
      {
        text: 'ROOT-FANS-OUT',
        toolUses: Array.from({ length: children }, (_, index) =>
          spawnInBackground(`worker ${index}`, `FAN-CHILD ${name} ${index}`),
        ),
      },
      ...Array.from({ length: 40 }, () => ({
        text: 'ROOT-WAITS',
        toolUses: [bash('sleep 0.5')],
      })),
    ]),
    {
      match: { userIncludes: `FAN-CHILD ${name}` },
      turns: Array.from({ length: 30 }, (_, index) => ({
        text: `CHILD-WORKING-${index} ${'lorem ipsum dolor sit amet '.repeat(40)}`,
        toolUses: [bash('echo step')],
        ...childTurn,
      })),
    },
  ]);
}

describe('the tree ledger on the real server', () => {
  for (const children of [10, 50]) {
    it(`holds a token budget when ${children} background children cross it at the same moment, and counts what was served`, async () => {
      const name = `ledger-fan-${children}`;
      const budget = 20_000 + children * 1000;
      env.modelServer.setBehaviour(fanOut(name, children, { delayMs: 400 }));
      const handle = await env.start({
        prompt: 'fan out',
        name,
        limits: {
          budget: { caps: { tokens: budget } },
          maxAgentsPerTree: children + 5,
          maxChildrenPerAgent: children + 5,
        },
      });
      const result = await handle.result();
      expect(result.status).toBe('cancelled');
      expect(result.error).toContain(
        `stopped by budget: the tree's budget of ${budget.toLocaleString('en-US')} tokens`,
      );
      const served = servedToTree(env.modelServer, handle.agentId);
      const snapshot = await handle.budget();
      const counted = rootAccount(snapshot).subtree.tokens;
      // Served stays within the budget but for the estimate's error; every served token is counted.
      expect(served).toBeGreaterThan(budget / 2);
      expect(served).toBeLessThanOrEqual(budget * 1.05);
      expect(counted).toBe(served);
      expect(rootAccount(snapshot).reservedTokens).toBe(0);
      expect(snapshot.accounts.filter((account) => account.running)).toEqual([]);
      if (children === 10) {
        await recordHistory(env.temporal.client, handle.agentId, 'budget-fanout-root');
        await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'budget-fanout-child');
      }
    }, 240_000);
  }

  it('counts calls cut mid-stream by the stop and calls that failed after message_start exactly as served', async () => {
    const name = 'ledger-cut';
    const budget = 30_000;
    // Slow streams: the stop at the budget cuts the calls in flight after their message_start.
    env.modelServer.setBehaviour(fanOut(name, 6, { eventDelayMs: 150 }));
    // Two calls fail after message_start (stream cut): retried, each attempt billed.
    env.modelServer.injectFault({ kind: 'stream-cut', times: 2 });
    const handle = await env.start({ prompt: 'fan out', name, limits: { budget: { caps: { tokens: budget } } } });
    const result = await handle.result();
    expect(result.error).toContain('stopped by budget');
    expect(result.status).toBe('cancelled');
    const served = servedToTree(env.modelServer, handle.agentId);
    const requests = env.modelServer
      .requests()
      .filter(
        (request) =>
          request.path === '/v1/messages' && request.headers['x-subagents-agent-id']?.startsWith(handle.agentId),
      );
    expect(cutAfterServing(requests)).toBeGreaterThanOrEqual(2);
    const snapshot = await handle.budget();
    expect(rootAccount(snapshot).subtree.tokens).toBe(served);
    expect(served).toBeLessThanOrEqual(budget * 1.05);
  }, 240_000);

  it('stops one subtree at its tool-call cap while its sibling goes on, and raises a cap on the running tree', async () => {
    const name = 'ledger-subtree';
    env.script(
      agentNamed(name, [
        { toolUses: [spawnInBackground('capped', 'CAPPED-WORKER'), spawnInBackground('free', 'FREE-WORKER')] },
        ...Array.from({ length: 60 }, () => ({
          text: 'ROOT-WAITS',
          toolUses: [bash('sleep 0.3')],
        })),
      ]),
      agentPrompted('CAPPED-WORKER', [
        {
          toolUses: [bash('until [ -f ledger-cap-set ]; do sleep 0.1; done; echo capped')],
        },
        ...Array.from({ length: 19 }, () => ({
          toolUses: [bash('echo capped')],
          delayMs: 150,
        })),
      ]),
      agentPrompted('FREE-WORKER', [
        ...Array.from({ length: 6 }, () => ({
          toolUses: [bash('echo free')],
          delayMs: 200,
        })),
        { text: 'FREE-DONE' },
      ]),
    );
    const handle = await env.start({
      prompt: 'two workers',
      name,
      limits: { budget: { caps: { tokens: 2_000_000 } } },
    });
    const cappedId = `${handle.agentId}.1`;
    const freeId = `${handle.agentId}.2`;
    // The capped worker's subtree gets 3 tool calls, set on the running tree as `subagents budget --set` does.
    await waitFor(
      async () => (await handle.budget()).accounts.some((account) => account.agentId === cappedId),
      30_000,
      'the capped worker joined the ledger',
    );
    await handle.setBudget({ toolCalls: 3 }, { agentId: cappedId });
    // Calls made before the cap (a leased call's charge may still be on its way) count; after it, at most the call in flight.
    const madeBefore = (await handle.budget()).accounts.find((account) => account.agentId === cappedId)!.subtree
      .toolCalls;
    writeFileSync(path.join(env.workspace, 'ledger-cap-set'), '');
    const capped = env.client.getAgent(cappedId);
    await waitFor(async () => (await capped.status()).result !== undefined, 60_000, 'the capped worker ended');
    const cappedResult = (await capped.status()).result!;
    expect(cappedResult.status).toBe('cancelled');
    expect(cappedResult.error).toContain(`stopped by budget: the subtree of ${cappedId}'s budget of 3 tool calls`);
    const free = env.client.getAgent(freeId);
    await waitFor(async () => (await free.status()).result !== undefined, 60_000, 'the free worker ended');
    expect((await free.status()).result!.finalText).toBe('FREE-DONE');
    const snapshot = await handle.budget();
    const cappedAccount = snapshot.accounts.find((account) => account.agentId === cappedId)!;
    expect(cappedAccount.subtree.toolCalls).toBeLessThanOrEqual(Math.max(3, madeBefore + 1) + 1);
    expect(cappedAccount.exhausted).toContain('3 tool calls');
    // Raising the tree's cap on the running tree: the answer is the caps now in force.
    expect(await handle.setBudget({ tokens: 3_000_000 })).toMatchObject({ tokens: 3_000_000 });
    await handle.stop({ reason: 'test over' });
    await handle.result().catch(() => undefined);
    await recordHistory(env.temporal.client, cappedId, 'budget-subtree-capped-child');
    await recordHistory(env.temporal.client, handle.agentId, 'budget-subtree-root');
  }, 180_000);
});
