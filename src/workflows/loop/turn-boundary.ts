import { condition } from '@temporalio/workflow';
import type { AwaitingInput } from '../../shared/agents/agent';
import type { AgentParts } from './agent-parts';
import { historyDue, continueAsNewIfDue } from '../context/continue-as-new';
import { deliverInbox, notify } from '../tools/hook-events';
import { hooksMayRun } from '../tools/hooks';

export { continueAsNewIfDue } from '../context/continue-as-new';

/** Waits at a turn boundary for something to deliver and appends it; false when there is nothing more to do. */
export async function waitForInput(agent: AgentParts, after: AwaitingInput): Promise<boolean> {
  const { input, inbox, children, progress, state } = agent;
  const mayContinue = inbox.size > 0 || (input.interactive !== undefined && !inbox.inputEnded);
  if (mayContinue) await continueAsNewIfDue(agent, after);
  if (inbox.size === 0 && children.runningBackgroundCount > 0) {
    progress.waiting(`${children.runningBackgroundCount} background agent(s)`);
    await condition(() => inbox.size > 0 || children.runningBackgroundCount === 0 || agent.rewinding.requested);
  }
  // A rewind asked while it waits: the loop carries it out (docs/rewind.md).
  if (agent.rewinding.requested) return true;
  if (inbox.size === 0 && input.interactive && !inbox.inputEnded) {
    await waitIdle(agent, after, input.interactive.idleTimeoutMs);
  }
  if (agent.rewinding.requested) return true;
  if (inbox.size === 0) return false;
  // UserPromptSubmit hooks (docs/hooks.md) see each message and steer; without them nothing is awaited.
  const delivering = deliverInbox(agent, inbox);
  const texts = delivering instanceof Promise ? await delivering : delivering;
  // Every prompt was blocked: the agent waits again (or ends) as if nothing had come.
  if (texts.length === 0) return waitForInput(agent, after);
  state.append({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) });
  return true;
}

/** An interactive agent idle until the next message; wakes to compact or to continue-as-new when due. */
async function waitIdle(agent: AgentParts, after: AwaitingInput, idleTimeoutMs: number): Promise<void> {
  const { inbox, progress, compaction, upgrade } = agent;
  let historyWasDue = historyDue(agent);
  // Notification hooks (`idle_prompt`) hear that the agent waits for its next message.
  if (hooksMayRun(agent, 'Notification', 'idle_prompt'))
    await notify(agent, 'idle_prompt', `${agent.input.agentType} ${agent.input.agentId} waits for your next message`);
  for (;;) {
    progress.waiting('the next message');
    const woke = await condition(
      () =>
        inbox.size > 0 ||
        inbox.inputEnded ||
        agent.rewinding.requested ||
        compaction.isRequested ||
        upgrade.requested !== undefined ||
        (!historyWasDue && historyDue(agent)),
      idleTimeoutMs,
    );
    if (!woke || inbox.size > 0 || inbox.inputEnded || agent.rewinding.requested) return;
    if (compaction.isRequested) await compaction.compactIfDue(agent);
    if (historyDue(agent) || upgrade.requested !== undefined) await continueAsNewIfDue(agent, after);
    historyWasDue = historyDue(agent);
  }
}
