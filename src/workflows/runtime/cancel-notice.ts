import type { WorkflowInterceptorsFactory, WorkflowInternalsInterceptor } from '@temporalio/workflow';
import type { StopNotice } from '../../shared/protocol/definitions';
import { noticeIn, reasonFor } from '../../shared/protocol/stop-notice-reason';

// Interceptors that carry a stop notice as the cancellation's reason, unused by the SDK (docs/architecture.md).

/** Notices to put on this workflow task's cancellation commands, by the workflow id of the agent cancelled. */
const outgoing = new Map<string, StopNotice>();
/** The workflow id of each child this run started, by the sequence number its cancellation names. */
const childIds = new Map<number, string>();
/** The notice this run's cancellation carried, if any. Module state: interceptors have no agent part. */
let carried: StopNotice | undefined;
let installed = false;
/** Pending activity tasks by sequence number: true for one whose end may come after the run moved on. */
const pendingActivities = new Map<number, boolean>();
/** Whether such an activity was pending at this run's cancellation. Module state: interceptors have no agent part. */
let pendingAtCancel = false;

/** TRY_CANCEL, the SDK's encoding of ActivityCancellationType (also when the field is left out). */
const tryCancel = 0;

/** Whether an activity's end may reach the server after its run moved on from its cancellation (TRY_CANCEL). */
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

/** Whether a TRY_CANCEL activity was pending at this run's cancellation (true when unknown; see ending.ts). */
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
      const target =
        cancelChild?.childWorkflowSeq != null
          ? childIds.get(cancelChild.childWorkflowSeq)
          : external?.workflowExecution?.workflowId;
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
