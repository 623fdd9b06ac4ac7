import { CancellationScope, condition } from '@temporalio/workflow';
import { stopNoticeSignal, type StopNotice } from '../../shared/protocol/definitions';
import { stopNoticeWait } from '../../shared/protocol/limits';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { canCarryNotice, cancelWithNotice, noticeCarriedByCancel } from '../runtime/cancel-notice';
import { hasPatch } from '../runtime/patches';
import type { TurnControl } from '../loop/turn-control';

/**
 * Marks runs that stop another agent in one workflow task (docs/architecture.md, "Abort domains and the
 * control plane"): the stop notice and the cancellation go out together, instead of the cancellation
 * waiting a workflow task for the notice's delivery. Each level of a stopping tree starts its own
 * children's stop one round trip sooner.
 */
export const stopInOneTaskPatch = 'stop-in-one-task';

/**
 * Marks runs whose stops carry the stop notice on the cancellation request itself
 * (src/workflows/runtime/cancel-notice.ts): no stopNotice signal beside the cancellation, so the server runs one
 * request per stopped agent instead of two, and the stopped agent learns who stopped it in the same
 * workflow task as its cancellation, never waiting for a notice.
 */
export const stopNoticeInCancelPatch = 'stop-notice-in-cancel';

/**
 * How this run tells an agent it stops who stops it and why: on the cancellation request when its
 * bundle can (patch {@link stopNoticeInCancelPatch}), else by a signal sent beside the cancellation in
 * the same workflow task (patch {@link stopInOneTaskPatch}), else — runs recorded before both — by a
 * signal whose delivery is awaited before the cancellation goes out.
 */
export type NoticeWay = 'on-cancel' | 'beside' | 'before';

export function noticeWay(): NoticeWay {
  if (canCarryNotice() && hasPatch(stopNoticeInCancelPatch)) return 'on-cancel';
  return hasPatch(stopInOneTaskPatch) ? 'beside' : 'before';
}

/** Tells `agentId`, which the caller cancels next, who stops it and why, the run's {@link noticeWay}. */
export async function tellStopped(agentId: string, notice: StopNotice, way: NoticeWay = noticeWay()): Promise<void> {
  if (way === 'on-cancel') cancelWithNotice(agentId, notice);
  else if (way === 'beside') sendStopNotice(agentId, notice);
  else await signalBestEffort(agentId, stopNoticeSignal, notice);
}

/**
 * Sends the stop notice without waiting for its delivery, in a scope of its own: a stop of the sender
 * that comes meanwhile does not take the notice back. The agent being stopped gets the notice and its
 * cancellation in either order; {@link waitForStopNotice} waits for a notice still on its way.
 */
export function sendStopNotice(agentId: string, notice: StopNotice): void {
  void CancellationScope.nonCancellable(() => signalBestEffort(agentId, stopNoticeSignal, notice));
}

/**
 * True when this agent was cancelled before its stop notice came: a subagent whose parent sends both
 * at once (they may arrive in either order). A subagent whose cancellation carried the notice takes it
 * from there and does not wait. A root never waits — the client's stop carries the notice on its
 * cancellation (older clients sent it by signal first and waited for its delivery) — nor does an agent
 * that stopped itself (it knows why).
 */
export function stopNoticeOnItsWay(control: TurnControl, hasParent: boolean): boolean {
  if (control.stopNotice) return false;
  const carried = noticeCarriedByCancel();
  if (!hasParent) {
    // Who stopped a root changes only its result's words, never its commands: no patch to ask.
    if (carried) control.noteStop(carried);
    return false;
  }
  if (carried && hasPatch(stopNoticeInCancelPatch)) {
    control.noteStop(carried);
    return false;
  }
  return hasPatch(stopInOneTaskPatch);
}

/**
 * Waits at most `stopNoticeWait` for the stop notice; a subagent cancelled without one (an operator's
 * bare `temporal workflow cancel`) goes on after that wait, stopped by "a cancellation request". In a
 * scope that is not cancellable: the agent's own scopes are cancelled by then.
 */
export async function waitForStopNotice(control: TurnControl): Promise<void> {
  const arrived = await CancellationScope.nonCancellable(() => condition(() => control.stopNotice !== undefined, stopNoticeWait));
  // Waited once: the next step of the same stop (a turn's answers, then the ending) does not wait again.
  if (!arrived) control.noteStop(control.stopNoticeOrDefault());
}
