import { CancellationScope, condition } from '@temporalio/workflow';
import { stopNoticeSignal, type StopNotice } from '../../shared/protocol/definitions';
import { stopNoticeWait } from '../../shared/protocol/limits';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { canCarryNotice, cancelWithNotice, noticeCarriedByCancel } from '../runtime/cancel-notice';
import { hasPatch } from '../runtime/patches';
import type { TurnControl } from '../loop/turn-control';

/** Marks runs that send the stop notice and the cancellation in one workflow task. */
export const stopInOneTaskPatch = 'stop-in-one-task';

/** Marks runs whose stops carry the notice on the cancellation request itself (runtime/cancel-notice.ts). */
export const stopNoticeInCancelPatch = 'stop-notice-in-cancel';

/** How a stop notice travels: on the cancellation, beside it in the same task, or before it (older runs). */
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

/** Sends the stop notice unawaited, in its own scope, so a stop of the sender cannot take it back. */
export function sendStopNotice(agentId: string, notice: StopNotice): void {
  void CancellationScope.nonCancellable(() => signalBestEffort(agentId, stopNoticeSignal, notice));
}

/** True when a subagent was cancelled before its stop notice came; roots and self-stopped agents never wait. */
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

/** Waits at most `stopNoticeWait` for the stop notice, in a non-cancellable scope; then goes on without. */
export async function waitForStopNotice(control: TurnControl): Promise<void> {
  const arrived = await CancellationScope.nonCancellable(() =>
    condition(() => control.stopNotice !== undefined, stopNoticeWait),
  );
  // Waited once: the next step of the same stop (a turn's answers, then the ending) does not wait again.
  if (!arrived) control.noteStop(control.stopNoticeOrDefault());
}
