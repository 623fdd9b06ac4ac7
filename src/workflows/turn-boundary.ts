import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput } from '../shared/agent';
import type { AgentParts } from './agent-parts';

/**
 * Waits at a turn boundary for something to deliver — notifications of running background
 * children, and for an interactive agent the next message — and appends it as the next user
 * message. False when there is nothing more to do.
 */
export async function waitForInput({ input, inbox, children, progress, state }: AgentParts): Promise<boolean> {
  if (inbox.size === 0 && children.runningBackgroundCount > 0) {
    progress.waiting(`${children.runningBackgroundCount} background agent(s)`);
    await condition(() => inbox.size > 0 || children.runningBackgroundCount === 0);
  }
  if (inbox.size === 0 && input.interactive && !inbox.inputEnded) {
    progress.waiting('the next message');
    await condition(() => inbox.size > 0 || inbox.inputEnded, input.interactive.idleTimeoutMs);
  }
  if (inbox.size === 0) return false;
  state.append({ role: 'user', content: inbox.drain().map((text) => ({ type: 'text' as const, text })) });
  return true;
}

/**
 * Long sessions (docs/architecture.md): continue-as-new at a turn boundary when Temporal suggests
 * it or past the event threshold — only with no running children (they are bound to this run) and
 * no pending approval, after every handler has finished, carrying the conversation, counters,
 * inbox and tree state.
 */
export async function continueAsNewIfDue({ input, state, inbox, tree, children, approvals, board }: AgentParts): Promise<void> {
  const info = workflowInfo();
  const due = info.continueAsNewSuggested || info.historyLength >= input.limits.continueAsNewAfterEvents;
  const blocked = () => children.runningCount > 0 || approvals.pendingCount > 0;
  if (!due || blocked()) return;
  await condition(allHandlersFinished);
  if (blocked()) return;
  const next: AgentWorkflowInput = {
    ...input,
    renderedSystemPrompt: state.systemPrompt,
    forkFrom: undefined,
    carried: state.carry(),
    carriedInbox: inbox.pending(),
    carriedTree: tree.coordinator?.carry(),
    carriedBoard: board.carry(),
    continuedRuns: (input.continuedRuns ?? 0) + 1,
  };
  await continueAsNew<(input: AgentWorkflowInput) => Promise<AgentResult>>(next);
}
