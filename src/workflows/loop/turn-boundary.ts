import { condition } from '@temporalio/workflow';
import type { AwaitingInput } from '../../shared/agents/agent';
import type { AgentParts } from './agent-parts';
import { everyBoundaryPatch, historyDue, continueAsNewIfDue } from '../context/continue-as-new';
import { hasPatch } from '../runtime/patches';

export { continueAsNewIfDue } from '../context/continue-as-new';

/** Waits at a turn boundary for something to deliver and appends it; false when there is nothing more to do. */
export async function waitForInput(agent: AgentParts, after: AwaitingInput): Promise<boolean> {
  const { input, inbox, children, progress, state } = agent;
  // Runs before the patch never continue-as-new here; hasPatch() is asked once, before waiting, so replay takes the same path.
  const everyBoundary = hasPatch(everyBoundaryPatch);
  const mayContinue = inbox.size > 0 || (input.interactive !== undefined && !inbox.inputEnded);
  if (everyBoundary && mayContinue) await continueAsNewIfDue(agent, after);
  if (inbox.size === 0 && children.runningBackgroundCount > 0) {
    progress.waiting(`${children.runningBackgroundCount} background agent(s)`);
    await condition(() => inbox.size > 0 || children.runningBackgroundCount === 0);
  }
  if (inbox.size === 0 && input.interactive && !inbox.inputEnded) {
    if (!everyBoundary) {
      progress.waiting('the next message');
      await condition(() => inbox.size > 0 || inbox.inputEnded, input.interactive.idleTimeoutMs);
    } else {
      await waitIdle(agent, after, input.interactive.idleTimeoutMs);
    }
  }
  if (inbox.size === 0) return false;
  state.append({ role: 'user', content: inbox.drain().map((text) => ({ type: 'text' as const, text })) });
  return true;
}

/** An interactive agent idle until the next message; wakes to compact or to continue-as-new when due. */
async function waitIdle(agent: AgentParts, after: AwaitingInput, idleTimeoutMs: number): Promise<void> {
  const { inbox, progress, compaction, upgrade } = agent;
  let historyWasDue = historyDue(agent);
  for (;;) {
    progress.waiting('the next message');
    const woke = await condition(
      () =>
        inbox.size > 0 ||
        inbox.inputEnded ||
        compaction.isRequested ||
        upgrade.requested !== undefined ||
        (!historyWasDue && historyDue(agent)),
      idleTimeoutMs,
    );
    if (!woke || inbox.size > 0 || inbox.inputEnded) return;
    if (compaction.isRequested) await compaction.compactIfDue(agent);
    if (historyDue(agent) || upgrade.requested !== undefined) await continueAsNewIfDue(agent, after);
    historyWasDue = historyDue(agent);
  }
}
