// @slow
import { describe, expect, it } from 'vitest';
import { costOfUsage } from '../../src/shared/model/model-prices';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { processesMatching } from '../helpers/processes';
import { agentNamed, agentPrompted, bash, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

/** What the local model server served to one tree, request by request. */
function servedRequests(rootId: string) {
  return env.modelServer
    .requests()
    .filter(
      (request) =>
        request.path === '/v1/messages' &&
        request.headers['x-subagents-agent-id']?.startsWith(rootId) &&
        request.served,
    );
}

describe('cost and wall-time caps on the real server', () => {
  it('holds a cost cap priced with cache writes and reads as the API bills them', async () => {
    const name = 'cost-cap-root';
    const capUsd = 1.5;
    env.script({
      match: { agentName: name },
      turns: Array.from({ length: 80 }, (_, index) => ({
        text: `STEP-${index} ${'cost '.repeat(200)}`,
        toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
      })),
    });
    const handle = await env.start({
      prompt: 'spend dollars',
      name,
      limits: { budget: { caps: { costUsd: capUsd } } },
    });
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(result.error).toContain(`stopped by budget: the tree's budget of $${capUsd.toFixed(2)}`);
    const requests = servedRequests(handle.agentId);
    // The conversation's prefix was read from the prompt cache: reads are priced at a tenth of input.
    expect(requests.some((request) => request.served!.cacheReadInputTokens > 0)).toBe(true);
    const servedUsd = requests.reduce((sum, request) => sum + costOfUsage('claude-test-tiny', request.served!), 0);
    const snapshot = await handle.budget();
    const counted = snapshot.accounts.find((account) => account.agentId === handle.agentId)!.subtree.costUsd;
    expect(counted).toBeCloseTo(servedUsd, 9);
    expect(servedUsd).toBeLessThanOrEqual(capUsd * 1.05);
    expect(servedUsd).toBeGreaterThan(capUsd / 2);
    // Priced as plain input, the same tokens would have cost far more: the cap used the cache's prices.
    const asInput = requests.reduce((sum, request) => {
      const served = request.served!;
      return (
        sum +
        costOfUsage('claude-test-tiny', {
          ...served,
          inputTokens: served.inputTokens + served.cacheReadInputTokens + served.cacheCreationInputTokens,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 0,
        })
      );
    }, 0);
    expect(asInput).toBeGreaterThan(servedUsd * 1.5);
    await recordHistory(env.temporal.client, handle.agentId, 'budget-cost-root');
  }, 180_000);

  it('stops a subtree at its wall-time cap in the middle of a long command, while its sibling goes on', async () => {
    const name = 'wall-cap-root';
    env.script(
      agentNamed(name, [
        { toolUses: [spawnInBackground('slow', 'WALL-SLOW'), spawnInBackground('steady', 'WALL-STEADY')] },
        ...Array.from({ length: 80 }, () => ({
          text: 'ROOT-WAITS',
          toolUses: [bash('sleep 0.3')],
        })),
      ]),
      agentPrompted('WALL-SLOW', [{ toolUses: [bash('sleep 120.3141')] }, { text: 'SLOW-NEVER' }]),
      agentPrompted('WALL-STEADY', [
        ...Array.from({ length: 8 }, () => ({ toolUses: [bash('sleep 0.5')] })),
        { text: 'STEADY-DONE' },
      ]),
    );
    const handle = await env.start({
      prompt: 'two workers',
      name,
      limits: { budget: { caps: { tokens: 5_000_000 } } },
    });
    const slowId = `${handle.agentId}.1`;
    const steadyId = `${handle.agentId}.2`;
    await waitFor(() => processesMatching('^sleep 120.3141').length === 1, 60_000, 'the long command to start');
    // Its subtree gets 2 s of wall time while the command runs (as `subagents budget --set wallTimeMs=2000 --subtree` does).
    await handle.setBudget({ wallTimeMs: 2000 }, { agentId: slowId });
    const slow = env.client.getAgent(slowId);
    await waitFor(async () => (await slow.status()).result !== undefined, 60_000, 'the slow worker was stopped');
    const slowResult = (await slow.status()).result!;
    expect(slowResult.status).toBe('cancelled');
    expect(slowResult.error).toContain(`stopped by budget: the subtree of ${slowId}'s budget of 2s of wall time`);
    // Stopped mid-step: the command did not run its two minutes.
    expect(slowResult.durationMs).toBeLessThan(60_000);
    await waitFor(() => processesMatching('^sleep 120.3141').length === 0, 30_000, 'the long command to end');
    const steady = env.client.getAgent(steadyId);
    await waitFor(async () => (await steady.status()).result !== undefined, 90_000, 'the steady worker finished');
    expect((await steady.status()).result!.finalText).toBe('STEADY-DONE');
    expect((await handle.budget()).accounts.find((account) => account.agentId === slowId)!.exhausted).toContain(
      'wall time',
    );
    await handle.stop({ reason: 'test over' });
    await handle.result().catch(() => undefined);
    await recordHistory(env.temporal.client, slowId, 'budget-wall-slow-child');
    await recordHistory(env.temporal.client, handle.agentId, 'budget-wall-root');
  }, 180_000);

  it('asks a person when a cap is reached (action ask): approve raises it by half, deny stops the tree', async () => {
    const name = 'ask-cap-root';
    const budget = 20_000;
    env.script({
      match: { agentName: name },
      turns: Array.from({ length: 80 }, (_, index) => ({
        text: `ASK-${index} ${'ask '.repeat(150)}`,
        toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
      })),
    });
    const handle = await env.start({
      prompt: 'spend and ask',
      name,
      limits: { budget: { caps: { tokens: budget }, action: 'ask' } },
    });
    const question = async () => (await handle.tree()).pendingApprovals.find((request) => request.tool === 'Budget');
    await waitFor(async () => (await question()) !== undefined, 60_000, 'the first question');
    const first = (await question())!;
    expect(first.inputSummary).toContain(`the tree's budget of ${budget.toLocaleString('en-US')} tokens`);
    expect(first.inputSummary).toContain('approve to raise it by half (30,000 tokens)');
    // While the question waits, the tree spends nothing more.
    const waiting = (await handle.budget()).accounts.find((account) => account.agentId === handle.agentId)!.subtree
      .tokens;
    expect(waiting).toBeLessThanOrEqual(budget * 1.05);
    await handle.answerApproval(first.requestId, { approve: true, by: 'tester' });
    await waitFor(
      async () => {
        const next = await question();
        return next !== undefined && next.requestId !== first.requestId;
      },
      60_000,
      'the second question, after the raised cap was spent',
    );
    const raised = (await handle.budget()).accounts.find((account) => account.agentId === handle.agentId)!;
    expect(raised.caps).toEqual({ tokens: 30_000 });
    expect(raised.subtree.tokens).toBeGreaterThan(budget);
    expect(raised.subtree.tokens).toBeLessThanOrEqual(30_000 * 1.05);
    await handle.answerApproval((await question())!.requestId, { approve: false, by: 'tester' });
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(result.error).toContain("stopped by budget: the tree's budget of 30,000 tokens");
  }, 180_000);

  it("refuses spawns past a subtree's cap on agents running at once, naming it", async () => {
    const name = 'concurrency-cap-root';
    env.script(
      agentNamed(name, [
        {
          toolUses: Array.from({ length: 4 }, (_, index) =>
            spawnInBackground(`worker ${index}`, `CONCURRENT-WORKER ${index}`),
          ),
        },
        { text: 'ROOT-DONE {{last_user_text}}' },
        { text: 'ROOT-DONE-2 {{last_user_text}}' },
        { text: 'ROOT-DONE-3 {{last_user_text}}' },
      ]),
      agentPrompted('CONCURRENT-WORKER', [{ toolUses: [bash('sleep 1')] }, { text: 'WORKER-DONE' }]),
    );
    // The root and two workers at once.
    const handle = await env.start({
      prompt: 'four workers',
      name,
      limits: { budget: { caps: { concurrentAgents: 3 } } },
    });
    await handle.result();
    const bodies = modelCallsOf(env.modelServer, handle.agentId).map((request) => request.rawBody);
    const second = bodies[1]!;
    expect(second.match(/SpawnLimitReached/g)?.length).toBe(2);
    expect(second).toContain("the tree's budget of 3 agents at once, 3 running");
    const started = (await handle.tree()).nodes.filter((node) => node.agentId.startsWith(`${handle.agentId}.`));
    expect(started).toHaveLength(2);
  }, 120_000);
});
