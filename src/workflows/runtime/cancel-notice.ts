import type { WorkflowInterceptorsFactory, WorkflowInternalsInterceptor } from '@temporalio/workflow';
import type { StopNotice } from '../../shared/protocol/definitions';
import { noticeIn, reasonFor } from '../../shared/protocol/stop-notice-reason';

/**
 * A stop notice carried by the cancellation request itself (docs/architecture.md, "Abort domains and
 * the control plane"). Temporal's cancellation requests have a reason — the server records it as the
 * cause of the stopped agent's `WorkflowExecutionCancelRequested` event and hands it to the agent with
 * the cancellation — but the TypeScript SDK neither sets nor reads it. This module's interceptors do
 * both: a stopping agent names the notice of each agent it cancels ({@link cancelWithNotice}), the
 * notice goes out as the reason of that cancellation command, and the cancelled agent reads it from its
 * cancellation ({@link noticeCarriedByCancel}). One request per stopped agent instead of a stopNotice
 * signal and a cancellation, which the server ran one after the other for each parent and which the
 * stopped agent received in two workflow tasks.
 *
 * Registered as a workflow interceptor module (`workflowBundlerOptions`, the plugin); a bundle built
 * without it keeps the separate signal ({@link canCarryNotice}). Module state is per workflow run.
 */

/** Notices to put on this workflow task's cancellation commands, by the workflow id of the agent cancelled. */
const outgoing = new Map<string, StopNotice>();
/** The workflow id of each child this run started, by the sequence number its cancellation names. */
const childIds = new Map<number, string>();
/** The notice the cancellation of this run carried, if one did. */
/** Stays module state: an interceptor module, which the SDK calls with no agent part at hand. */
let carried: StopNotice | undefined;
/** Whether this run's interceptors are installed (the bundle has this module as an interceptor module). */
/** Stays module state: an interceptor module, which the SDK calls with no agent part at hand. */
let installed = false;
/**
 * Activity tasks this run scheduled that no activation has resolved yet, by sequence number: true for one
 * whose end may still reach the server after the run has moved on — one cancelled without waiting for
 * its end (TRY_CANCEL: model calls, setup). Tool activities wait for their cancellation to complete.
 */
const pendingActivities = new Map<number, boolean>();
/** Whether such an activity task was still pending when this run's cancellation came. */
/** Stays module state: an interceptor module, which the SDK calls with no agent part at hand. */
let pendingAtCancel = false;

/** TRY_CANCEL, the SDK's encoding of ActivityCancellationType (also when the field is left out). */
const tryCancel = 0;

/**
 * Whether a scheduled activity's end may reach the server after its run has moved on from its
 * cancellation: the workflow does not wait for it (TRY_CANCEL). A model call whose request the turn's
 * local abort cut holds its end until Temporal's cancellation (src/activities/model.ts), but one that
 * finished just before the abort reaches the server at once — under load, while the stopped agent's
 * workflow task still runs.
 */
export function endMayComeAfterCancel(activity: { cancellationType?: number | null }): boolean {
  return (activity.cancellationType ?? tryCancel) === tryCancel;
}

/** True when a stop notice can ride on a cancellation in this run. */
export function canCarryNotice(): boolean {
  return installed;
}

/** The next cancellation of `agentId` this workflow task sends (its child's scope, or an external cancel) carries `notice`. */
export function cancelWithNotice(agentId: string, notice: StopNotice): void {
  outgoing.set(agentId, notice);
}

/** The notice this run's cancellation carried, if any. */
export function noticeCarriedByCancel(): StopNotice | undefined {
  return carried;
}

/**
 * Whether one of this run's activity tasks whose end may still come was pending when its cancellation
 * came (true when the interceptors are not installed: unknown). Such an activity's end may reach the
 * server after the agent has moved on, and a workflow task that closes the run while one arrives is
 * refused by the server (the worker then drops the run from its cache and replays its whole history): a
 * stopped agent that had one closes a workflow task later (src/workflows/loop/ending.ts).
 */
export function activityPendingAtCancel(): boolean {
  return !installed || pendingAtCancel;
}

const internals: WorkflowInternalsInterceptor = {
  activate(input, next) {
    const jobs = input.activation.jobs ?? [];
    for (const job of jobs) {
      const resolved = job.resolveActivity;
      if (resolved?.seq != null && !resolved.isLocal) pendingActivities.delete(resolved.seq);
    }
    for (const job of jobs) {
      if (!job.cancelWorkflow) continue;
      carried = noticeIn(job.cancelWorkflow.reason) ?? carried;
      // Kept once set: a second cancellation comes after the first one's model call was resolved as cancelled.
      for (const endMayCome of pendingActivities.values()) pendingAtCancel ||= endMayCome;
    }
    return next(input);
  },
  concludeActivation(input, next) {
    for (const command of input.commands) {
      const scheduled = command.scheduleActivity;
      if (scheduled?.seq != null) pendingActivities.set(scheduled.seq, endMayComeAfterCancel(scheduled));
      const start = command.startChildWorkflowExecution;
      if (start?.workflowId && start.seq != null) childIds.set(start.seq, start.workflowId);
      const cancelChild = command.cancelChildWorkflowExecution;
      const external = command.requestCancelExternalWorkflowExecution;
      const target = cancelChild?.childWorkflowSeq != null ? childIds.get(cancelChild.childWorkflowSeq) : external?.workflowExecution?.workflowId;
      const notice = target ? outgoing.get(target) : undefined;
      if (!notice) continue;
      if (cancelChild) cancelChild.reason = reasonFor(notice);
      else if (external) external.reason = reasonFor(notice);
    }
    // A notice is for this task's cancellation only: a later one without a notice must not take it.
    outgoing.clear();
    return next(input);
  },
};

/** The interceptor module's factory (the SDK calls it once per workflow run). */
export const interceptors: WorkflowInterceptorsFactory = () => {
  installed = true;
  return { internals: [internals] };
};
