import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type proto from '@temporalio/proto';
import type { Behaviour } from '../../src/model-server/server';
import { stopNoticeSignal } from '../../src/shared/definitions';
import { stopInOneTaskPatch } from '../../src/workflows/stop-delivery';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { historyEvents, patchIdsOf, recordHistory } from '../helpers/histories';

// A stop sends each child its notice and its cancellation in one workflow task (src/workflows/stop-delivery.ts);
// a subagent whose cancellation comes first waits briefly for the notice, so it still says who stopped it.

let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'echo' });
});
afterAll(async () => {
  await env?.close();
});

const scenario = (agents: unknown[]): Behaviour => ({ kind: 'scripted', scenario: { agents } }) as never;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const eventsOf = (workflowId: string) => historyEvents(env.temporal.client, workflowId);

/** The workflow task that sent `childId` its stop notice, and the one that asked for its cancellation. */
function stopTasksOf(events: HistoryEvent[], childId: string): { notice?: number; cancel?: number } {
  const notice = events.find(
    (event) =>
      event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'stopNotice' &&
      event.signalExternalWorkflowExecutionInitiatedEventAttributes.workflowExecution?.workflowId === childId,
  );
  const cancel = events.find((event) => event.requestCancelExternalWorkflowExecutionInitiatedEventAttributes?.workflowExecution?.workflowId === childId);
  return {
    notice: Number(notice?.signalExternalWorkflowExecutionInitiatedEventAttributes?.workflowTaskCompletedEventId ?? Number.NaN),
    cancel: Number(cancel?.requestCancelExternalWorkflowExecutionInitiatedEventAttributes?.workflowTaskCompletedEventId ?? Number.NaN),
  };
}

describe('stopping a tree', () => {
  it('sends each child its notice and its cancellation in one workflow task; every agent ends cancelled and says who stopped it', async () => {
    env.modelServer.setBehaviour(
      scenario([
        { match: { agentName: 'stop-three-levels' }, turns: [{ toolUses: [{ name: 'Agent', input: { description: 'middle', prompt: 'stop-delivery middle: delegate' } }] }] },
        { match: { userIncludes: 'stop-delivery middle' }, turns: [{ toolUses: [{ name: 'Agent', input: { description: 'leaf', prompt: 'stop-delivery leaf: run a long command' } }] }] },
        { match: { userIncludes: 'stop-delivery leaf' }, turns: [{ toolUses: [{ name: 'Bash', input: { command: 'sleep 60' } }] }] },
      ]),
    );
    const root = await env.start({ prompt: 'delegate two levels down', name: 'stop-three-levels' });
    const middle = `${root.agentId}.1`;
    const leaf = `${middle}.1`;
    await waitFor(async () => (await env.client.getAgent(leaf).status().catch(() => undefined))?.state === 'running_tools', 60_000, 'the leaf to run Bash');

    await root.stop({ by: 'tester', reason: 'three levels' });
    await expect(root.result()).rejects.toThrow();
    await waitFor(
      async () => (await Promise.all([root.agentId, middle, leaf].map((id) => env.client.getAgent(id).describe()))).every((description) => description.status.name === 'CANCELLED'),
      60_000,
      'all three agents to end cancelled',
    );

    for (const [parent, child] of [
      [root.agentId, middle],
      [middle, leaf],
    ] as const) {
      const events = await eventsOf(parent);
      const tasks = stopTasksOf(events, child);
      expect(tasks.notice, `${parent} → ${child}`).toBeGreaterThan(0);
      expect(tasks.cancel, `${parent} → ${child}: notice and cancellation in the same workflow task`).toBe(tasks.notice);
      expect(patchIdsOf(events), parent).toContain(stopInOneTaskPatch);
    }
    for (const id of [root.agentId, middle, leaf]) {
      const messages = await env.client.getAgent(id).messages();
      expect(JSON.stringify(messages[messages.length - 1]!.content), id).toMatch(/[Ss]topped by tester: three levels/);
    }

    await recordHistory(env.temporal.client, root.agentId, 'stop-in-one-task-root');
    await recordHistory(env.temporal.client, middle, 'stop-in-one-task-middle');
    await recordHistory(env.temporal.client, leaf, 'stop-in-one-task-leaf');
  });

  it('a subagent whose cancellation comes before its notice waits for the notice and names who stopped it', async () => {
    env.modelServer.setBehaviour(
      scenario([
        { match: { agentName: 'late-notice' }, turns: [{ toolUses: [{ name: 'Agent', input: { description: 'slow', prompt: 'late-notice child: think slowly' } }] }, { text: 'the child was stopped' }] },
        { match: { userIncludes: 'late-notice child' }, turns: [{ text: 'never sent', delayMs: 60_000 }] },
      ]),
    );
    const root = await env.start({ prompt: 'delegate a slow task', name: 'late-notice' });
    const child = `${root.agentId}.1`;
    await waitFor(async () => (await env.client.getAgent(child).status().catch(() => undefined))?.state === 'calling_model', 60_000, 'the child to call the model');

    // The cancellation first, the notice a moment later: the order a parent's one-task stop may arrive in.
    const handle = env.temporal.client.workflow.getHandle(child);
    await handle.cancel();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await handle.signal(stopNoticeSignal, { by: 'ops', reason: 'late notice' });

    const result = await root.result();
    expect(result.status).toBe('completed');
    expect(JSON.stringify(await root.messages())).toContain('Agent was stopped: stopped by ops: late notice');
    expect((await env.client.getAgent(child).describe()).status.name).toBe('CANCELLED');
    const childEvents = await eventsOf(child);
    expect(patchIdsOf(childEvents)).toContain(stopInOneTaskPatch);

    await recordHistory(env.temporal.client, root.agentId, 'stop-late-notice-root');
    await recordHistory(env.temporal.client, child, 'stop-late-notice-child');
  });

  it('a subagent cancelled mid-tool without a notice waits for it once, then ends stopped by a cancellation request', async () => {
    env.modelServer.setBehaviour(
      scenario([
        { match: { agentName: 'bare-cancel' }, turns: [{ toolUses: [{ name: 'Agent', input: { description: 'busy', prompt: 'bare-cancel child: run a long command' } }] }, { text: 'the child was cancelled' }] },
        { match: { userIncludes: 'bare-cancel child' }, turns: [{ toolUses: [{ name: 'Bash', input: { command: 'sleep 60' } }] }] },
      ]),
    );
    const root = await env.start({ prompt: 'delegate a long command', name: 'bare-cancel' });
    const child = `${root.agentId}.1`;
    await waitFor(async () => (await env.client.getAgent(child).status().catch(() => undefined))?.state === 'running_tools', 60_000, 'the child to run Bash');

    await env.temporal.client.workflow.getHandle(child).cancel();
    const result = await root.result();
    expect(result.status).toBe('completed');
    expect(JSON.stringify(await root.messages())).toContain('Agent was stopped: stopped by a cancellation request: the workflow was cancelled');
    expect((await env.client.getAgent(child).describe()).status.name).toBe('CANCELLED');
    // The child's open Bash call is answered with who stopped it; the one-second wait happened once, not
    // again when the run ended.
    const messages = await env.client.getAgent(child).messages();
    expect(JSON.stringify(messages[messages.length - 1]!.content)).toContain('Stopped by a cancellation request');
    const waits = (await eventsOf(child)).filter((event) => Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) === 1);
    expect(waits).toHaveLength(1);

    await recordHistory(env.temporal.client, child, 'stop-bare-cancel-child');
  });
});
