import { releaseModelCall, reserveModelCall, settleModelCall, type BudgetedAgent } from '../budget/model-budget';
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import { extractSummary, type CompactionRecord, type CompactionTrigger } from '../../shared/model/compaction';
import { conversationLimits, defaultMaxOutputTokens } from '../../shared/protocol/limits';
import { textOf } from '../../shared/tools/tool-results';
import { modelActivities, modelOptions } from '../runtime/activity-proxies';
import { workflowNowMs } from '../runtime/clock';
import { compactAtTokens, contextWindowFor, estimateNextRequestTokens } from './context-meter';
import { compactedOpening, droppedOpening, planCompaction } from './compaction-plan';
import type { TreeLink } from '../tree/tree-link';
import { hooksMayRun, type HookedAgent } from '../tools/hooks';
import { compacted, compactionBlocked, sessionStartContext } from '../tools/hook-events';

/** What compacting needs of an agent: its budget, and its tree for the usage of an unbudgeted call. */
type CompactingAgent = BudgetedAgent & HookedAgent & { readonly tree: TreeLink };

/** Compaction (docs/architecture.md): a turn summarises the older messages; the summary is its activity result. */
export class Compaction {
  private requested?: { by: string; instructions?: string };

  /** Someone asked for a compaction (the compact update): it runs at the next turn boundary, or at once when the agent waits. */
  request(by: string, instructions?: string): void {
    this.requested = { by, ...(instructions ? { instructions } : {}) };
  }

  get isRequested(): boolean {
    return this.requested !== undefined;
  }

  /** Why the conversation should be compacted now, if it should. */
  due({ input, state }: Pick<BudgetedAgent, 'input' | 'state'>): CompactionTrigger | undefined {
    if (this.requested) return 'manual';
    if (estimateNextRequestTokens(input, state) > compactAtTokens(input)) return 'auto';
    if (state.conversation.byteCount > conversationLimits.maxConversationBytes) return 'auto';
    return undefined;
  }

  /** Compacts when due. Runs where a model call could: at a turn's start, or while the agent waits for input. */
  async compactIfDue(agent: CompactingAgent): Promise<void> {
    const trigger = this.due(agent);
    if (!trigger) return;
    const instructions = this.requested?.instructions;
    this.requested = undefined;
    await compact(agent, trigger, instructions);
  }
}

async function compact(
  agent: CompactingAgent,
  trigger: CompactionTrigger,
  instructions: string | undefined,
): Promise<void> {
  const { input, state } = agent;
  const window = contextWindowFor(input);
  const keepTokens = Math.floor(
    Math.min(window, conversationLimits.maxConversationBytes / 4) * conversationLimits.keepRecentWindowFraction,
  );
  const plan = planCompaction(state.messages, (from, to) => state.conversation.tokensOf(from, to), keepTokens);
  if (!plan) return;
  // PreCompact hooks (docs/hooks.md) may block it; nothing is awaited without them.
  if (hooksMayRun(agent, 'PreCompact') && (await compactionBlocked(agent, trigger, instructions))) return;
  const preTokens = estimateNextRequestTokens(input, state);
  setCurrentDetails(
    `turn ${state.turn}/${input.maxTurns}: compacting the conversation (${preTokens} of ${window} tokens)`,
  );
  const summary = await summarise(agent, plan.cut, window, instructions);
  const kept = state.messages.length - plan.cut;
  let opening = 'text' in summary ? compactedOpening(plan, kept, summary.text) : droppedOpening(plan, summary.failure);
  if (hooksMayRun(agent, 'PostCompact'))
    await compacted(agent, trigger, 'text' in summary ? summary.text : `no summary: ${summary.failure}`);
  // As in Claude Code, a compaction starts the session anew for SessionStart hooks (source `compact`): their context opens it.
  const session = hooksMayRun(agent, 'SessionStart') ? await sessionStartContext(agent, 'compact') : undefined;
  if (session && Array.isArray(opening.content))
    opening = { ...opening, content: [...opening.content, { type: 'text', text: session }] };
  const record: CompactionRecord = {
    trigger,
    preTokens,
    postTokens: 0,
    summarisedMessages: plan.cut,
    keptMessages: kept,
    turn: state.turn,
    atMs: workflowNowMs(),
    ...('failure' in summary ? { fallback: summary.failure } : {}),
  };
  state.conversation.compact(opening, plan.cut, record);
  record.postTokens = estimateNextRequestTokens(input, state);
  state.recordCompaction(record);
}

/** The compaction turn: a summary of messages [0, cut), or why none could be made. */
async function summarise(
  agent: CompactingAgent,
  cut: number,
  window: number,
  instructions: string | undefined,
): Promise<{ text: string } | { failure: string }> {
  const { input, state, tree } = agent;
  // A budgeted tree's compaction reserves as any call does (docs/budgets.md).
  const maxOutputTokens = input.maxOutputTokens ?? defaultMaxOutputTokens;
  const reservation = await reserveModelCall(agent, maxOutputTokens);
  if (reservation.kind === 'refused') return { failure: `stopped by budget: ${reservation.grant.reason}` };
  let answered = false;
  try {
    const response = await modelActivities.compactConversation.executeWithOptions(
      { ...modelOptions, summary: `compaction · ${input.model}` },
      [
        {
          agentId: input.agentId,
          agentType: input.agentType,
          agentName: input.name,
          runId: workflowInfo().runId,
          model: input.model,
          maxOutputTokens: reservation.kind === 'granted' ? reservation.maxOutputTokens : maxOutputTokens,
          ...(reservation.kind === 'granted' ? { budget: reservation.budget } : {}),
          ...(input.thinking ? { thinking: input.thinking } : {}),
          messageCount: cut,
          conversationHash: state.conversation.hashAt(cut),
          turn: state.turn,
          compaction: { contextWindowTokens: window, ...(instructions ? { instructions } : {}) },
        },
      ],
    );
    answered = true;
    state.addUsage(response.usage);
    await settleModelCall(agent, reservation, response, maxOutputTokens);
    if (reservation.kind === 'none') await tree.reportUsage(response.usage);
    const text = extractSummary(textOf(response.content));
    return text ? { text } : { failure: 'the compaction turn returned no summary' };
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure)
      return { failure: `${error.cause.type}: ${error.cause.message}` };
    throw error;
  } finally {
    if (!answered) await releaseModelCall(agent, reservation);
  }
}
