// @slow
import { describe, expect, it } from 'vitest';
import type proto from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { resumeStateQuery, stopNoticeSignal } from '../../src/shared/protocol/definitions';
import { cancelNoticePrefix, noticeIn, reasonFor } from '../../src/shared/protocol/stop-notice-reason';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { waitForClosed, waitForState } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { abortsOf, historyEvents, patchIdsOf, recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, bash, spawn, spawnInBackground, threeLevelTree } from '../helpers/scripted-agents';

// A stop carries each child's notice on its cancellation request (src/workflows/runtime/cancel-notice.ts,
// src/workflows/tree/stop-delivery.ts); a subagent cancelled without one (an operator's bare cancel) waits
// briefly for a notice signal, so it still says who stopped it when one comes.

const env = useAgentTestEnv();

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const eventsOf = (workflowId: string) => historyEvents(env.temporal.client, workflowId);

/** What the server recorded of `childId`'s stop in its parent's history: notice signals sent to it, cancellation requests of it. */
function stopCommandsFor(events: HistoryEvent[], childId: string): { notices: number; cancels: string[] } {
  const notices = events.filter(
    (event) =>
      event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'stopNotice' &&
      event.signalExternalWorkflowExecutionInitiatedEventAttributes.workflowExecution?.workflowId === childId,
  ).length;
  const cancels = events
    .map((event) => event.requestCancelExternalWorkflowExecutionInitiatedEventAttributes)
    .filter((cancel) => cancel?.workflowExecution?.workflowId === childId)
    .map((cancel) => cancel?.reason ?? '');
  return { notices, cancels };
}

/** The cause the server recorded with a run's cancellation request. */
const cancelCauseOf = (events: HistoryEvent[]) =>
  events.find((event) => event.workflowExecutionCancelRequestedEventAttributes)
    ?.workflowExecutionCancelRequestedEventAttributes?.cause ?? '';

/** The partial results (childFinal) a run sent its parent. */
const finalReportsOf = (events: HistoryEvent[]) =>
  events.filter((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'childFinal');

/** Timers of five seconds: a parent waiting for a stopped child's partial result (childFinalReportWait). */
const reportWaitsOf = (events: HistoryEvent[]) =>
  events.filter((event) => Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) === 5);

/** Timers of one second: a stopped agent waiting for a notice that had not come (stopNoticeWait). */
const noticeWaitsOf = (events: HistoryEvent[]) =>
  events.filter((event) => Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) === 1);

describe('stopping a tree', () => {
  it("carries each child's notice on its cancellation: no notice signal, no wait; every agent ends cancelled and says who stopped it", async () => {
    env.script(
      ...threeLevelTree(
        'stop-three-levels',
        'stop-delivery middle: delegate',
        'stop-delivery leaf: run a long command',
      ),
    );
    const root = await env.start({ prompt: 'delegate two levels down', name: 'stop-three-levels' });
    const middle = `${root.agentId}.1`;
    const leaf = `${middle}.1`;
    await waitForState(env, leaf, 'running_tools', 'the leaf to run Bash');

    await root.stop({ by: 'tester', reason: 'three levels' });
    await expect(root.result()).rejects.toThrow();
    await waitFor(
      async () =>
        (await Promise.all([root.agentId, middle, leaf].map((id) => env.client.getAgent(id).describe()))).every(
          (description) => description.status.name === 'CANCELLED',
        ),
      60_000,
      'all three agents to end cancelled',
    );

    // Each level passes the stop down, saying which ancestor was stopped.
    const toMiddle = `three levels (ancestor ${root.agentId} was stopped)`;
    for (const [parent, child, by, reason] of [
      [root.agentId, middle, 'tester', toMiddle],
      [middle, leaf, 'tester', `${toMiddle} (ancestor ${middle} was stopped)`],
    ] as const) {
      const sent = stopCommandsFor(await eventsOf(parent), child);
      expect(sent.notices, `${parent} sends ${child} no stopNotice signal`).toBe(0);
      // The root stops its whole tree: every notice down the tree says so, and that its sender has ended.
      const notice = { by, reason, wholeTree: true, parentEnded: true };
      expect(sent.cancels, `${parent} cancels ${child} once, the notice on the request`).toEqual([reasonFor(notice)]);
      const childEvents = await eventsOf(child);
      expect(noticeIn(cancelCauseOf(childEvents)), child).toEqual(notice);
      expect(noticeWaitsOf(childEvents), `${child} did not wait for a notice`).toHaveLength(0);
      expect(patchIdsOf(childEvents), child).toEqual([]);
      // Its parent has ended and waits for no partial result.
      expect(reportWaitsOf(await eventsOf(parent)), `${parent} waits for no report`).toHaveLength(0);
    }
    // Neither the middle, waiting for its leaf, nor the leaf, whose turn waited for its Bash call's
    // cancellation, sends a partial result: each closes without waiting a workflow task for its delivery.
    expect(finalReportsOf(await eventsOf(middle)), 'the middle reports no partial result').toHaveLength(0);
    expect(finalReportsOf(await eventsOf(leaf)), 'the leaf reports no partial result').toHaveLength(0);
    // The client stops the root with one request too: the notice on its cancellation, no stopNotice signal.
    const rootEvents = await eventsOf(root.agentId);
    expect(
      rootEvents.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'stopNotice'),
      'the root got no stopNotice signal',
    ).toHaveLength(0);
    expect(noticeIn(cancelCauseOf(rootEvents)), "the root's cancellation carries the notice").toEqual({
      by: 'tester',
      reason: 'three levels',
    });
    for (const id of [root.agentId, middle, leaf]) {
      const messages = await env.client.getAgent(id).messages();
      expect(JSON.stringify(messages[messages.length - 1]!.content), id).toMatch(/[Ss]topped by tester: three levels/);
    }

    // In a whole-tree stop the middle does not report its leaf's end to the root: the root marks every
    // agent finished once its own children have closed.
    const middleEvents = await eventsOf(middle);
    const cancelledAt = middleEvents.findIndex((event) => event.workflowExecutionCancelRequestedEventAttributes);
    const treeEventsAfterStop = middleEvents
      .slice(cancelledAt)
      .filter(
        (event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'treeAgentEvent',
      );
    expect(cancelledAt).toBeGreaterThan(0);
    expect(treeEventsAfterStop, 'the middle sent the root no tree event after the stop').toHaveLength(0);
    const tree = await root.tree();
    expect(
      tree.nodes.map((node) => [node.agentId, node.status]),
      "the root's tree after the stop",
    ).toEqual([
      [middle, 'finished'],
      [leaf, 'finished'],
    ]);

    await recordHistory(env.temporal.client, root.agentId, 'ended-parent-stop-root');
    await recordHistory(env.temporal.client, middle, 'ended-parent-stop-middle');
    await recordHistory(env.temporal.client, leaf, 'ended-parent-stop-leaf');
  });

  it('a stopped subtree: the middle reports its partial result to its running parent; the agents it stops report none to it', async () => {
    env.script(
      agentNamed('subtree-stop', [
        {
          toolUses: [spawnInBackground('middle', 'SUBTREE-MIDDLE', { name: 'mid' })],
        },
        { toolUses: [bash('until [ -f subtree-bottom-started ]; do sleep 0.1; done')] },
        { toolUses: [{ name: 'TaskStop', input: { task_id: 'mid' } }] },
        { text: 'ROOT-DONE' },
      ]),
      agentPrompted('SUBTREE-MIDDLE', [
        {
          text: 'MIDDLE-PARTIAL',
          toolUses: [spawn('leaf', 'SUBTREE-LEAF')],
        },
      ]),
      agentPrompted('SUBTREE-LEAF', [
        {
          text: 'LEAF-PARTIAL',
          toolUses: [spawn('bottom', 'SUBTREE-BOTTOM')],
        },
      ]),
      agentPrompted('SUBTREE-BOTTOM', [
        {
          text: 'BOTTOM-PARTIAL',
          toolUses: [bash('touch subtree-bottom-started && sleep 60')],
        },
      ]),
    );
    const root = await env.start({ prompt: 'start a subtree, then stop it', name: 'subtree-stop' });
    const middle = `${root.agentId}.1`;
    const leaf = `${middle}.1`;
    const bottom = `${leaf}.1`;
    const result = await root.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('ROOT-DONE');
    // The root, still running, heard of the middle's stop with the middle's partial text.
    expect(JSON.stringify(await root.messages())).toMatch(
      /Agent was stopped: stopped by [^"]*its parent stopped it\\nMIDDLE-PARTIAL/,
    );
    expect(finalReportsOf(await eventsOf(middle)), 'the middle reported its partial result').toHaveLength(1);
    for (const id of [leaf, bottom]) {
      await waitForClosed(env, id, 'CANCELLED', `${id} to end cancelled`);
    }
    // The middle had ended when it stopped the leaf, and the leaf when it stopped the bottom: neither waited
    // for a report, and neither the leaf (waiting for the bottom) nor the bottom (in Bash) sent one.
    const leafEvents = await eventsOf(leaf);
    expect(noticeIn(cancelCauseOf(leafEvents))).toEqual({
      by: root.agentId,
      reason: `its parent stopped it (ancestor ${middle} was stopped)`,
      parentEnded: true,
    });
    expect(finalReportsOf(leafEvents), 'the leaf reported no partial result').toHaveLength(0);
    expect(finalReportsOf(await eventsOf(bottom)), 'the bottom reported no partial result').toHaveLength(0);
    for (const id of [middle, leaf])
      expect(reportWaitsOf(await eventsOf(id)), `${id} waited for no report`).toHaveLength(0);
    // Each stopped agent's partial result stays readable from its own run.
    for (const [id, text] of [
      [leaf, 'LEAF-PARTIAL'],
      [bottom, 'BOTTOM-PARTIAL'],
    ] as const) {
      const stopped = (await env.client.getAgent(id).status()).result!;
      expect(stopped, id).toMatchObject({ status: 'cancelled', finalText: text });
      expect(stopped.error, id).toContain(`stopped by ${root.agentId}`);
    }
    await recordHistory(env.temporal.client, middle, 'ended-parent-subtree-middle');
    await recordHistory(env.temporal.client, leaf, 'ended-parent-subtree-leaf');
    await recordHistory(env.temporal.client, bottom, 'ended-parent-subtree-bottom');
  });

  it('a child stopped with its parent while it waits on the model: its call is cut; it still reports, so it closes a task later', async () => {
    env.script(
      agentNamed('stop-thinking-child', [{ toolUses: [spawn('thinker', 'stop-delivery thinker: think slowly')] }]),
      agentPrompted('stop-delivery thinker', [{ text: 'never sent', delayMs: 60_000 }]),
    );
    const root = await env.start({ prompt: 'delegate slow thinking', name: 'stop-thinking-child' });
    const child = `${root.agentId}.1`;
    const childCalls = () => modelCallsOf(env.modelServer, child);
    await waitFor(() => childCalls().length === 1, 60_000, 'the child to call the model');
    await root.stop({ by: 'tester', reason: 'enough' });
    await waitForClosed(env, child, 'CANCELLED', 'the child to end cancelled');
    await waitFor(
      () => childCalls()[0]!.abortedAt !== undefined,
      10_000,
      "the model server to see the child's call aborted",
    );
    const childEvents = await eventsOf(child);
    // A model call's end may still come (one that finished just before the abort): the child reports to its
    // ended parent, which waits for nothing, and closes once the report is delivered — no task refused.
    expect(finalReportsOf(childEvents), 'the child sent its partial result').toHaveLength(1);
    expect(reportWaitsOf(await eventsOf(root.agentId))).toHaveLength(0);
    const cancelledAt = childEvents.findIndex((event) => event.workflowExecutionCancelRequestedEventAttributes);
    expect(
      childEvents.slice(cancelledAt).filter((event) => event.workflowTaskFailedEventAttributes),
      'no refused workflow task',
    ).toHaveLength(0);
    expect(abortsOf(childEvents), 'the abort cut the call').toEqual([1]);
    expect((await env.client.getAgent(child).status()).result).toMatchObject({
      status: 'cancelled',
      error: `stopped by tester: enough (ancestor ${root.agentId} was stopped)`,
    });
  });

  it('takes a notice an operator puts on a cancellation request; a malformed one is no notice', async () => {
    env.script(
      agentNamed('operator-reason', [
        {
          toolUses: [0, 1].map((index) =>
            spawnInBackground(`slow ${index}`, `operator-reason child ${index}: think slowly`),
          ),
        },
        { text: 'started both' },
        { text: 'noted one' },
        { text: 'noted both' },
      ]),
      agentPrompted('operator-reason child', [{ text: 'never sent', delayMs: 60_000 }]),
    );
    const root = await env.start({ prompt: 'delegate two slow tasks', name: 'operator-reason' });
    const [wellFormed, malformed] = [`${root.agentId}.1`, `${root.agentId}.2`];
    for (const child of [wellFormed, malformed]) {
      await waitForState(env, child, 'calling_model', `${child} to call the model`);
    }
    // A script's cancellation request with a reason (the gRPC request's `reason`; the temporal CLI passes none to the workflow).
    const cancel = (workflowId: string, reason: string) =>
      env.temporal.client.workflowService.requestCancelWorkflowExecution({
        namespace: env.temporal.client.options.namespace,
        workflowExecution: { workflowId },
        reason,
        identity: 'ops',
        requestId: randomUUID(),
      });
    await cancel(wellFormed, reasonFor({ by: 'ops', reason: 'batch stop' }));
    await cancel(malformed, `${cancelNoticePrefix}{"by": "ops", "reason": `);
    for (const child of [wellFormed, malformed]) {
      await waitForClosed(env, child, 'CANCELLED', `${child} to end cancelled`);
    }
    const wellFormedEvents = await eventsOf(wellFormed);
    expect(noticeWaitsOf(wellFormedEvents)).toHaveLength(0);
    expect(JSON.stringify(await env.client.getAgent(wellFormed).messages())).not.toContain('a cancellation request');
    expect(noticeWaitsOf(await eventsOf(malformed))).toHaveLength(1);
    // The root hears of both: one stopped by the operator's notice, the other by "a cancellation request".
    const heard = async () => {
      const transcript = JSON.stringify(await root.messages());
      return (
        transcript.includes('stopped by ops: batch stop') &&
        transcript.includes('stopped by a cancellation request: the workflow was cancelled')
      );
    };
    await waitFor(heard, 60_000, 'the root to hear who stopped each child');
    expect((await root.result()).status).toBe('completed');
  });

  it('refuses a stop whose notice the agent could not read, before anything is stopped', async () => {
    env.script(agentNamed('unreadable-notice', [{ text: 'never sent', delayMs: 60_000 }]));
    const root = await env.start({ prompt: 'think slowly', name: 'unreadable-notice' });
    await waitForState(env, root.agentId, 'calling_model', 'the agent to call the model');
    await expect(root.stop({ by: '' })).rejects.toThrow(/"by" of 1 to 512 characters.*nothing was stopped/);
    await expect(root.stop({ by: 'ops', reason: 'x'.repeat(4001) })).rejects.toThrow(
      /reason of at most 4000.*nothing was stopped/,
    );
    expect((await root.describe()).status.name).toBe('RUNNING');
    expect(cancelCauseOf(await eventsOf(root.agentId))).toBe('');
    await root.stop({ by: 'ops', reason: 'done' });
    await waitForClosed(env, root.agentId, 'CANCELLED', 'the agent to end cancelled');
    expect(noticeIn(cancelCauseOf(await eventsOf(root.agentId)))).toEqual({ by: 'ops', reason: 'done' });
    const state = await env.temporal.client.workflow.getHandle(root.agentId).query(resumeStateQuery);
    expect(state.result?.error, 'the root read who stopped it from its cancellation').toBe('stopped by ops: done');
  });

  it('a subagent whose cancellation comes before its notice waits for the notice and names who stopped it', async () => {
    env.script(
      agentNamed('late-notice', [
        { toolUses: [spawn('slow', 'late-notice child: think slowly')] },
        { text: 'the child was stopped' },
      ]),
      agentPrompted('late-notice child', [{ text: 'never sent', delayMs: 60_000 }]),
    );
    const root = await env.start({ prompt: 'delegate a slow task', name: 'late-notice' });
    const child = `${root.agentId}.1`;
    await waitForState(env, child, 'calling_model', 'the child to call the model');

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
    expect(noticeWaitsOf(childEvents)).toHaveLength(1);
    expect(patchIdsOf(childEvents)).toEqual([]);

    await recordHistory(env.temporal.client, root.agentId, 'stop-late-notice-b2-root');
    await recordHistory(env.temporal.client, child, 'stop-late-notice-b2-child');
  });

  it('a subagent cancelled mid-tool without a notice waits for it once, then ends stopped by a cancellation request', async () => {
    env.script(
      agentNamed('bare-cancel', [
        { toolUses: [spawn('busy', 'bare-cancel child: run a long command')] },
        { text: 'the child was cancelled' },
      ]),
      agentPrompted('bare-cancel child', [{ toolUses: [bash('sleep 60')] }]),
    );
    const root = await env.start({ prompt: 'delegate a long command', name: 'bare-cancel' });
    const child = `${root.agentId}.1`;
    await waitForState(env, child, 'running_tools', 'the child to run Bash');

    await env.temporal.client.workflow.getHandle(child).cancel();
    const result = await root.result();
    expect(result.status).toBe('completed');
    expect(JSON.stringify(await root.messages())).toContain(
      'Agent was stopped: stopped by a cancellation request: the workflow was cancelled',
    );
    expect((await env.client.getAgent(child).describe()).status.name).toBe('CANCELLED');
    // The child's open Bash call is answered with who stopped it; the one-second wait happened once, not
    // again when the run ended.
    const messages = await env.client.getAgent(child).messages();
    expect(JSON.stringify(messages[messages.length - 1]!.content)).toContain('Stopped by a cancellation request');
    expect(noticeWaitsOf(await eventsOf(child))).toHaveLength(1);

    await recordHistory(env.temporal.client, child, 'stop-bare-cancel-b2-child');
  });
});
