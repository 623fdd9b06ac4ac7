import { CancellationScope, condition } from '@temporalio/workflow';
import { stopNoticeSignal, type StopNotice } from '../shared/definitions';
import { stopNoticeWait } from '../shared/limits';
import { signalBestEffort } from './best-effort-signal';
import { hasPatch } from './patches';
import type { TurnControl } from './turn-control';

/**
 * Marks runs that stop another agent in one workflow task (docs/architecture.md, "Abort domains and the
 * control plane"): the stop notice and the cancellation go out together, instead of the cancellation
 * waiting a workflow task for the notice's delivery. Each level of a stopping tree starts its own
 * children's stop one round trip sooner.
 */
export const stopInOneTaskPatch = 'stop-in-one-task';

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
 * at once (they may arrive in either order). A root never waits — the client sends the notice first
 * and waits for its delivery before it cancels — nor does an agent that stopped itself (it knows why).
 */
export function stopNoticeOnItsWay(control: TurnControl, hasParent: boolean): boolean {
  return !control.stopNotice && hasParent && hasPatch(stopInOneTaskPatch);
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
