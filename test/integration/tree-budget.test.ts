import { describe, expect, it } from 'vitest';
import { scenario, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash, spawn } from '../helpers/scripted-agents';
import { answeredCallsOf, answeredRequestsOf, type ContentBlock } from '../helpers/model-requests';

const env = useAgentTestEnv();

const requestsOf = (agentId: string) => answeredRequestsOf(env.modelServer, agentId);

describe('the tree token budget', () => {
  it('stops every agent of the tree at the budget — a foreground chain and the root — each with the reason and its partial result', async () => {
    const budget = 30_000;
    env.script(
      agentNamed('budget-chain-root', [
        { text: 'ROOT-PARTIAL', toolUses: [spawn('middle', 'FG-MIDDLE')] },
        { text: 'ROOT-NEVER' },
      ]),
      agentPrompted('FG-MIDDLE', [
        { text: 'MIDDLE-PARTIAL', toolUses: [spawn('leaf', 'FG-LEAF')] },
        { text: 'MIDDLE-NEVER' },
      ]),
      {
        match: { userIncludes: 'FG-LEAF' },
        turns: Array.from({ length: 60 }, (_, index) => ({
          text: `LEAF-PARTIAL-${index}`,
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: 50,
        })),
      },
    );
    const handle = await env.start({
      prompt: 'spend the budget',
      name: 'budget-chain-root',
      limits: { treeTokenBudget: budget },
    });
    const result = await handle.result();
    const reason = `the tree's budget of ${budget.toLocaleString('en-US')} tokens`;
    expect(result.status).toBe('cancelled');
    expect(result.error).toContain(`stopped by budget: ${reason}`);
    expect(result.finalText).toBe('ROOT-PARTIAL');
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    const middleId = `${handle.agentId}.1`;
    const leafId = `${middleId}.1`;
    for (const [agentId, partial] of [
      [middleId, /^MIDDLE-PARTIAL$/],
      [leafId, /^LEAF-PARTIAL-\d+$/],
    ] as const) {
      const workflow = env.temporal.client.workflow.getHandle(agentId);
      await waitFor(async () => (await workflow.describe()).status.name !== 'RUNNING', 30_000, `${agentId} closed`);
      expect((await workflow.describe()).status.name).toBe('CANCELLED');
      const stopped = (await env.client.getAgent(agentId).status()).result!;
      expect(stopped.status).toBe('cancelled');
      expect(stopped.error).toContain(reason);
      expect(stopped.finalText).toMatch(partial);
    }
    expect(requestsOf(leafId).length).toBeLessThan(60);
    // The whole tree stopped: the middle reported no end of its leaf to the root after its stop, and the
    // root's bookkeeping shows every agent finished.
    const middleEvents = (await env.temporal.client.workflow.getHandle(middleId).fetchHistory()).events ?? [];
    const middleCancelled = middleEvents.findIndex((event) => event.workflowExecutionCancelRequestedEventAttributes);
    expect(middleCancelled).toBeGreaterThan(0);
    expect(
      middleEvents
        .slice(middleCancelled)
        .filter(
          (event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'treeAgentEvent',
        ),
    ).toHaveLength(0);
    expect((await handle.tree()).nodes.map((node) => node.status)).toEqual(['finished', 'finished']);
    // The root's Agent call was answered with who stopped it; it made no further model call.
    expect(requestsOf(handle.agentId)).toHaveLength(1);
    const tree = await handle.tree();
    // Reserved before each call: the tree stopped at the call that could not reserve, within its budget.
    expect(tree.tokensUsed).toBeLessThanOrEqual(budget);
    expect(tree.budgetReached).toContain(reason);

    // Resume and messages respect the spent budget: the root and a stopped leaf are not resumed.
    await expect(env.client.send(handle.agentId, 'more please')).rejects.toThrow(/token budget/);
    await expect(env.client.resume(leafId, 'go on')).rejects.toThrow(/stopped/);
    await expect(env.client.resume(leafId, 'go on', { allowStopped: true })).rejects.toThrow(/token budget/);
    await recordHistory(env.temporal.client, handle.agentId, 'long-runs-budget-root');
  });

  it('does not send the turn that would pass the budget, so the SendMessage resume it would ask for never happens', async () => {
    const scenarioFor = (name: string) =>
      scenario([
        agentNamed(name, [
          {
            toolUses: [spawn('helper', 'SM-BUDGET-HELPER', { name: 'helper' })],
          },
          {
            text: 'ROOT-BEFORE-SEND',
            toolUses: [{ name: 'SendMessage', input: { to: 'helper', message: 'one more thing' } }],
          },
          { text: 'ROOT-AFTER-SEND' },
          { text: 'ROOT-NOTIFIED' },
        ]),
        agentPrompted('SM-BUDGET-HELPER', [{ text: 'HELPER-DONE' }, { text: 'HELPER-RESUMED' }]),
      ]);
    const tokensOf = (agentId: string) =>
      answeredCallsOf(env.modelServer, agentId)
        .map((request) => request.usage!)
        .map(
          (usage) =>
            usage.input_tokens +
            usage.output_tokens +
            usage.cache_creation_input_tokens +
            usage.cache_read_input_tokens,
        );

    // Measure the same tree (same name length, no budget): the root's second call is the one that should reach the budget.
    env.modelServer.setBehaviour(scenarioFor('sm-budget-calib'));
    const { handle: measured } = await runCompleted(env, { prompt: 'send at the budget', name: 'sm-budget-calib' });
    const [root1, root2] = tokensOf(measured.agentId);
    const [helper1, helper2] = tokensOf(`${measured.agentId}.1`);
    expect(helper2).toBeDefined();
    const budget = root1! + helper1! + Math.floor(root2! / 2);

    env.modelServer.setBehaviour(scenarioFor('sm-budget-tests'));
    const handle = await env.start({
      prompt: 'send at the budget',
      name: 'sm-budget-tests',
      limits: { treeTokenBudget: budget },
    });
    const result = await handle.result();
    expect(result.status).toBe('cancelled');
    expect(result.error).toContain(`stopped by budget: the tree's budget of ${budget.toLocaleString('en-US')} tokens`);
    // The root's second call could not reserve room: it was never sent (docs/budgets.md).
    expect(result.finalText).toBe('');
    expect((await handle.tree()).tokensUsed).toBeLessThanOrEqual(budget);
    const helperId = `${handle.agentId}.1`;
    // The helper was not resumed: one model call, one run.
    expect(tokensOf(helperId)).toHaveLength(1);
    const helperRuns = [];
    for await (const execution of env.temporal.client.workflow.list({ query: `WorkflowId = '${helperId}'` }))
      helperRuns.push(execution.runId);
    expect(helperRuns).toHaveLength(1);
    expect(tokensOf(handle.agentId)).toHaveLength(1);
    // Nor is it resumed from outside afterwards.
    await expect(env.client.resume(helperId, 'go on')).rejects.toThrow(/token budget/);
  });

  it('refuses a SendMessage resume while spawning is paused: a resume is a spawn the root decides', async () => {
    env.script(
      agentNamed('pause-resume-root', [
        { toolUses: [spawn('helper', 'PAUSE-HELPER', { name: 'helper' })] },
        { toolUses: [bash('until [ -f go-on ]; do sleep 0.1; done')] },
        { toolUses: [{ name: 'SendMessage', input: { to: 'helper', message: 'one more thing' } }] },
        { text: 'PAUSE-ROOT-DONE' },
      ]),
      agentPrompted('PAUSE-HELPER', [{ text: 'HELPER-DONE' }, { text: 'HELPER-RESUMED' }]),
    );
    const handle = await env.start({ prompt: 'pause then resume', name: 'pause-resume-root' });
    const helperId = `${handle.agentId}.1`;
    await waitFor(
      async () => {
        try {
          return (await env.temporal.client.workflow.getHandle(helperId).describe()).status.name === 'COMPLETED';
        } catch {
          return false;
        }
      },
      60_000,
      'the helper finished',
    );
    await handle.pauseSpawning(true);
    await env.writeFiles({ 'go-on': '' });
    const result = await handle.result();
    expect(result.finalText).toBe('PAUSE-ROOT-DONE');
    const requests = requestsOf(handle.agentId);
    const last = requests[3]!.messages[requests[3]!.messages.length - 1]!;
    const refusal = (last.content as ContentBlock[])[0]!;
    expect(refusal.is_error).toBe(true);
    expect(String(refusal.content)).toContain('SpawnLimitReached: spawning is paused');
    // The helper was not resumed.
    expect(requestsOf(helperId)).toHaveLength(1);
    await recordHistory(env.temporal.client, handle.agentId, 'long-runs-send-message-paused');
  });
});
