import { allHandlersFinished, condition, continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import { releaseAhead } from '../budget/model-budget';
import type { AgentResult, AgentWorkflowInput, AwaitingInput } from '../../shared/agents/agent';
import { jsonBytes } from '../../shared/model/context-estimate';
import { conversationLimits, defaultAgentLimits } from '../../shared/protocol/limits';
import type { AgentParts } from '../loop/agent-parts';
import { asyncHooksRunning, awaitAsyncHooks } from '../tools/async-hooks';

/** Past Temporal's suggestion or the tree's event threshold. */
function dueByEvents(input: AgentWorkflowInput): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= input.limits.continueAsNewAfterEvents;
}

/** Past the history-size threshold and grown by half of it in this run, so a large carried input cannot loop. */
export function dueBySize(input: AgentWorkflowInput, runStartBytes: number): boolean {
  const threshold = input.limits.continueAsNewAfterHistoryBytes ?? defaultAgentLimits.continueAsNewAfterHistoryBytes!;
  const size = workflowInfo().historySize;
  return size >= threshold && size - runStartBytes >= threshold / 2;
}

/** Whether the run should continue-as-new by its history (events, size, Temporal's suggestion); decided without awaiting. */
export function historyDue({ input, state }: Pick<AgentParts, 'input' | 'state'>): boolean {
  return dueByEvents(input) || dueBySize(input, state.runStartHistoryBytes);
}

/** The input of the next run: the conversation, counters, inbox, tree and board state, and what it was waiting after. */
function nextInput(
  { input, state, inbox, tree, board }: Pick<AgentParts, 'input' | 'state' | 'inbox' | 'tree' | 'board'>,
  awaiting: AwaitingInput | undefined,
): AgentWorkflowInput {
  return {
    ...input,
    renderedSystemPrompt: state.systemPrompt,
    forkFrom: undefined,
    branchFrom: undefined,
    carried: { ...state.carry(), ...(awaiting ? { awaiting } : {}) },
    carriedInbox: inbox.pending(),
    carriedTree: tree.coordinator?.carry(),
    carriedBoard: board.carry(),
    continuedRuns: (input.continuedRuns ?? 0) + 1,
  };
}

/** Continue-as-new at a turn boundary when due, with no running children or pending approval (docs/architecture.md). */
export async function continueAsNewIfDue(agent: AgentParts, awaiting?: AwaitingInput): Promise<void> {
  const { children, approvals } = agent;
  // Waiting for input, an agent asked to upgrade moves now (docs/operations.md, "Upgrades").
  const due = historyDue(agent) || (awaiting !== undefined && agent.upgrade.requested !== undefined);
  const blocked = () => children.runningCount > 0 || approvals.pendingCount > 0;
  if (!due || blocked()) return;
  await condition(allHandlersFinished);
  if (blocked()) return;
  if (asyncHooksRunning(agent) > 0) {
    await awaitRunningHooks(agent);
    if (blocked()) return;
  }
  let next = nextInput(agent, awaiting);
  if (jsonBytes(next) > conversationLimits.maxCarriedInputBytes) {
    agent.compaction.request('continue-as-new');
    await agent.compaction.compactIfDue(agent);
    next = nextInput(agent, awaiting);
  }
  const bytes = jsonBytes(next);
  if (bytes > conversationLimits.maxCarriedInputBytes) {
    log.warn(
      `not continuing as new: the carried input would be ${bytes} bytes (limit ${conversationLimits.maxCarriedInputBytes})`,
    );
    return;
  }
  // Room asked ahead belongs to this run's next call: given back, the next run asks anew.
  await releaseAhead(agent);
  await agent.upgrade.continueAsNew(next);
}

/**
 * An async hook's promise lives in this run: continuing now would lose what it says. The run waits for them (each
 * bounded by its own timeout); what they say is in the inbox, which the next run gets (docs/hooks.md, `async`).
 */
async function awaitRunningHooks(agent: AgentParts): Promise<void> {
  agent.progress.waiting(`${asyncHooksRunning(agent)} async hook(s) before continuing as new`);
  await awaitAsyncHooks(agent);
  await condition(allHandlersFinished);
}

/** The hop run (src/workflows/context/version-upgrade.ts): takes what arrived meanwhile and continues as new at once. */
export async function continueOntoCurrentVersion(
  agent: Pick<AgentParts, 'input' | 'state' | 'inbox' | 'tree' | 'board'>,
): Promise<never> {
  await condition(allHandlersFinished);
  return continueAsNew<(input: AgentWorkflowInput) => Promise<AgentResult>>(
    nextInput(agent, agent.state.takeAwaiting()),
  );
}
