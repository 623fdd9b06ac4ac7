import { describe, expect, it } from 'vitest';
import type { AgentStatusSnapshot } from '../../src/shared/agents/agent';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';

const env = useAgentTestEnv();

async function runsOf(workflowId: string): Promise<{ runId: string; startMs: number }[]> {
  const runs: { runId: string; startMs: number }[] = [];
  for await (const execution of env.temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runs.push({ runId: execution.runId, startMs: execution.startTime.getTime() });
  }
  return runs.sort((left, right) => left.startMs - right.startMs);
}

/** Waits for the agent's latest text to be `<prefix>-<turn>`; keeps the last status it read. */
function answerWatcher(handle: { status(): Promise<AgentStatusSnapshot> }, prefix: string, timeoutMs: number) {
  let status: AgentStatusSnapshot | undefined;
  const answered = (turn: number) =>
    waitFor(
      async () => {
        status = await handle.status().catch(() => undefined);
        return status?.latestText === `${prefix}-${turn}`;
      },
      timeoutMs,
      `${prefix}-${turn}`,
    );
  return { answered, status: () => status };
}

describe('long interactive sessions', () => {
  it('continues as new while waiting for the next message, compacts, refuses an oversized message, and keeps answering', async () => {
    const answers = 20;
    env.script({
      match: { agentName: 'chatty' },
      turns: Array.from({ length: answers }, (_, index) => ({ text: `ANSWER-${index}` })),
    });
    const handle = await env.start({
      prompt: 'LONG-SESSION',
      name: 'chatty',
      interactive: { idleTimeoutMs: 120_000 },
      limits: { continueAsNewAfterHistoryBytes: 400_000 },
    });
    const { answered, status } = answerWatcher(handle, 'ANSWER', 90_000);
    await answered(0);
    // Twelve messages of 60,000 characters (about 15,000 tokens each): more than claude-test-tiny's 200,000-token window holds.
    for (let index = 1; index <= 12; index++) {
      await env.client.send(handle.agentId, `MSG-${index} ${'y'.repeat(60_000)}`);
      await answered(index);
    }
    const runs = await runsOf(handle.agentId);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(status()!.context!.compactions.count).toBeGreaterThanOrEqual(1);

    // Larger than a quarter of the window: refused with a clear error, and the agent is told; the run goes on.
    await env.client.send(handle.agentId, `HUGE ${'z'.repeat(400_000)}`);
    await answered(13);
    expect(status()!.rejectedInputs.count).toBe(1);
    expect(status()!.rejectedInputs.last!.reason).toContain('MessageTooLarge');
    await env.client.send(handle.agentId, 'SMALL-AFTER-HUGE');
    await answered(14);
    await handle.close();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('ANSWER-14');

    const requests = modelCallsOf(env.modelServer, handle.agentId);
    expect(requests.every((request) => request.status === 200)).toBe(true);
    const notice = requests.find((request) => request.rawBody.includes('MessageTooLarge'));
    expect(notice).toBeDefined();
    expect(requests.some((request) => request.rawBody.includes('z'.repeat(1000)))).toBe(false);
    expect(requests.some((request) => request.rawBody.includes('SMALL-AFTER-HUGE'))).toBe(true);

    // Each run's history stays small: the conversation is carried, never re-recorded message by message.
    for (const run of await runsOf(handle.agentId)) {
      const history = await env.temporal.client.workflow.getHandle(handle.agentId, run.runId).fetchHistory();
      expect(JSON.stringify(history).length).toBeLessThan(2_000_000);
    }
    // The first run continued as new at a turn boundary where it waited for the next message.
    const first = await env.temporal.client.workflow.getHandle(handle.agentId, runs[0]!.runId).fetchHistory();
    const events = first.events ?? [];
    expect(events[events.length - 1]!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  });

  it('continues as new at an idle boundary with a small history threshold, and refuses an oversized message to a small-window model', async () => {
    env.script({
      match: { agentName: 'chatty-small' },
      turns: Array.from({ length: 10 }, (_, index) => ({ text: `SMALL-ANSWER-${index}` })),
    });
    const handle = await env.start({
      prompt: 'SMALL-SESSION',
      name: 'chatty-small',
      model: 'claude-test-small',
      interactive: { idleTimeoutMs: 120_000 },
      limits: { continueAsNewAfterHistoryBytes: 30_000 },
    });
    const { answered, status } = answerWatcher(handle, 'SMALL-ANSWER', 60_000);
    await answered(0);
    for (let index = 1; index <= 4; index++) {
      await env.client.send(handle.agentId, `SMALL-MSG-${index} ${'m'.repeat(8_000)}`);
      await answered(index);
    }
    const runs = await runsOf(handle.agentId);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const first = await env.temporal.client.workflow.getHandle(handle.agentId, runs[0]!.runId).fetchHistory();
    expect(first.events![first.events!.length - 1]!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();

    // claude-test-small's window is 24,000 tokens: a message of about 10,000 tokens passes its quarter.
    await env.client.send(handle.agentId, `TOO-BIG ${'q'.repeat(40_000)}`);
    await answered(5);
    expect(status()!.rejectedInputs.count).toBe(1);
    expect(status()!.rejectedInputs.last!.reason).toContain('MessageTooLarge');
    await env.client.send(handle.agentId, 'SMALL-AFTER-TOO-BIG');
    await answered(6);
    await handle.close();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const requests = modelCallsOf(env.modelServer, handle.agentId);
    expect(requests.some((request) => request.rawBody.includes('q'.repeat(1000)))).toBe(false);
    expect(requests.some((request) => request.rawBody.includes('MessageTooLarge'))).toBe(true);
    await recordHistory(env.temporal.client, handle.agentId, 'long-runs-interactive-first-run', runs[0]!.runId);
    // The run that refused the message (the refused payload itself may have made the next boundary continue as new).
    let refusingRunId: string | undefined;
    for (const run of await runsOf(handle.agentId)) {
      const history = await env.temporal.client.workflow.getHandle(handle.agentId, run.runId).fetchHistory();
      const refused = (history.events ?? []).some(
        (event) =>
          event.workflowExecutionSignaledEventAttributes?.signalName === 'message' &&
          (event.workflowExecutionSignaledEventAttributes.input?.payloads?.[0]?.data?.length ?? 0) > 40_000,
      );
      if (refused) refusingRunId = run.runId;
    }
    expect(refusingRunId).toBeDefined();
    await recordHistory(env.temporal.client, handle.agentId, 'long-runs-oversized-message', refusingRunId);
  });
});
