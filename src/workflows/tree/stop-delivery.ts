import { CancellationScope, condition } from '@temporalio/workflow';
import { stopNoticeSignal, type StopNotice } from '../../shared/protocol/definitions';
import { stopNoticeWait } from '../../shared/protocol/limits';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { canCarryNotice, cancelWithNotice, noticeCarriedByCancel } from '../runtime/cancel-notice';
import type { TurnControl } from '../loop/turn-control';

/**
 * Tells `agentId`, which the caller cancels next in the same workflow task, who stops it and why: on the
 * cancellation request (runtime/cancel-notice.ts), else by a signal beside it (a bundle without the interceptor).
 */
export function tellStopped(agentId: string, notice: StopNotice): void {
  if (canCarryNotice()) cancelWithNotice(agentId, notice);
  else sendStopNotice(agentId, notice);
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
    // Who stopped a root changes only its result's words, never its commands.
    if (carried) control.noteStop(carried);
    return false;
  }
  if (carried) {
    control.noteStop(carried);
    return false;
  }
  return true;
}

/** Waits at most `stopNoticeWait` for the stop notice, in a non-cancellable scope; then goes on without. */
export async function waitForStopNotice(control: TurnControl): Promise<void> {
  const arrived = await CancellationScope.nonCancellable(() =>
    condition(() => control.stopNotice !== undefined, stopNoticeWait),
  );
  // Waited once: the next step of the same stop (a turn's answers, then the ending) does not wait again.
  if (!arrived) control.noteStop(control.stopNoticeOrDefault());
}
