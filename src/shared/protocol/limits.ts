import type { BudgetCaps, TreeBudget } from '../budget/budget';

// Every limit of an agent tree and its defaults, in one place (docs/architecture.md, Limits).

/** Limits of a tree, fixed at the root and passed down unchanged. */
export interface AgentLimits {
  /** Deepest level that may exist (root = 0): agents at this depth get no Agent tool. Default 3. */
  maxDepth: number;
  /** Running children per parent. Default 10. */
  maxChildrenPerAgent: number;
  /** Running agents per tree, the root excluded. Default 20. */
  maxAgentsPerTree: number;
  /** Total tokens (input + output + cache write + cache read) a tree may use: the same as `budget.caps.tokens` (docs/budgets.md). */
  treeTokenBudget?: number;
  /** The tree's caps (tokens, cost, tool calls, turns, wall time, concurrent agents) and what reaching one does (docs/budgets.md). */
  budget?: TreeBudget;
  /** A foreground child still running after this long becomes a background task. Default 120000. */
  autoBackgroundMs: number;
  /** Turns of a subagent whose definition sets none. Default 50. */
  defaultMaxTurns: number;
  /** What a background agent's approval requests do: auto-deny (default), auto-approve, or bubble to the root. */
  backgroundApprovals: 'deny' | 'approve' | 'bubble';
  /** An Agent call without subagent_type forks when true, else starts general-purpose (default). */
  forking: boolean;
  /** Continue-as-new past this many history events; default 10000 (Temporal warns at 10240). */
  continueAsNewAfterEvents: number;
  /** Continue-as-new past this many history bytes; default 4 MiB, where Temporal suggests it. */
  continueAsNewAfterHistoryBytes?: number;
  /** Compact when the next request would pass this fraction of the context window (default 0.8). */
  compactAtFraction?: number;
  /** The context window to assume, for a model the runtime's table does not know (src/shared/model/context-windows.ts). */
  contextWindowTokens?: number;
  /** Claim lease of a board this tree creates (default boardLimits.defaultLeaseMs, docs/board.md). */
  boardLeaseMs?: number;
  /** No progress this long reports the agent stalled (default 600000, docs/architecture.md, Stall watchdog). */
  stallTimeoutMs?: number;
  /** What a stall does besides being reported: 'report' (default) or 'stop' the stalled agent. */
  stallAction?: StallAction;
}

/** What the stall watchdog does with a stalled agent. */
export type StallAction = 'report' | 'stop';

/** The stall watchdog's default: Claude Code's stall timeout for background agents. */
export const defaultStallTimeoutMs = 600_000;
/** The shortest stall timeout accepted (tests use a few seconds). */
export const minStallTimeoutMs = 1_000;
/** The longest stall timeout accepted: a day. */
export const maxStallTimeoutMs = 86_400_000;

export const defaultAgentLimits: AgentLimits = {
  maxDepth: 3,
  maxChildrenPerAgent: 10,
  maxAgentsPerTree: 20,
  autoBackgroundMs: 120_000,
  defaultMaxTurns: 50,
  backgroundApprovals: 'deny',
  forking: false,
  continueAsNewAfterEvents: 10_000,
  continueAsNewAfterHistoryBytes: 4 * 1024 * 1024,
  compactAtFraction: 0.8,
};

/** What keeps a conversation under Temporal's 2 MB payload limit for continue-as-new (docs/architecture.md). */
export const conversationLimits = {
  /** JSON bytes of the conversation past which it is compacted (leaves room under 2 MB for the rest of the carried state). */
  maxConversationBytes: 1_200_000,
  /** A carried input past this is not sent: the run compacts first, or waits for the next boundary. */
  maxCarriedInputBytes: 1_800_000,
  /** Fraction of the context window one delivered message may take at most. */
  maxMessageWindowFraction: 0.25,
  /** Output tokens of a compaction summary at most (Claude Code's summary budget). */
  maxSummaryTokens: 20_000,
  /** The recent turns kept verbatim after a compaction take at most this fraction of the window. */
  keepRecentWindowFraction: 0.3,
  /** New messages up to this size ride in the call's input (docs/architecture.md, "The conversation by reference"). */
  maxInlineTailBytes: 8 * 1024,
  /** Most JSON characters of pre-read outcomes an answer carries (docs/architecture.md, "Reads with the model call"). */
  maxPreReadChars: 200_000,
  /** How long a model call's answer waits for the file reads it started once the model is done; those still running then run after the call. */
  maxPreReadWaitMs: 10_000,
} as const;

/** max_tokens of each model call when the agent's input sets none (Claude Code's default output limit). */
export const defaultMaxOutputTokens = 32_000;

/** Turns of a fork child (Claude Code's fork agent budget); forks do one directive, often long. */
export const forkMaxTurns = 200;

/** A final answer cut at max_tokens is continued at most this many times in a row before the agent ends as truncated. */
export const maxOutputContinuations = 3;

/** Calls of one turn that run side by side at most (consecutive read-only tools and Agent calls). */
export const maxConcurrentToolCalls = 10;

/** How long a parent waits for a cancelled child's final report (childFinal) before it builds the result itself. */
export const childFinalReportWait = '5 seconds';

/** How long a cancelled subagent waits for its stop notice, which may arrive just after the cancellation. */
export const stopNoticeWait = '1 second';

/** Sizes of what a signal or update may carry (docs/security.md); larger inputs are refused. */
export const inputLimits = {
  /** Text of a message or steer: 1 MiB characters (Temporal refuses payloads over 2 MB). */
  maxMessageChars: 1024 * 1024,
  /** agentIds, request ids, names, tool names. */
  maxIdChars: 512,
  /** Reasons, descriptions, summaries. */
  maxShortTextChars: 4000,
  /** Items of a list in a signal (e.g. the task ids of a board notice). */
  maxListItems: 1000,
  /** JSON of the input an approval answer runs a call with instead of the model's. */
  maxUpdatedInputChars: 256 * 1024,
} as const;

/** The tree's caps, `treeTokenBudget` folded in; undefined when the tree has none. */
export function treeCapsOf(limits: Pick<AgentLimits, 'treeTokenBudget' | 'budget'>): BudgetCaps | undefined {
  const caps: BudgetCaps = { ...limits.budget?.caps };
  if (limits.treeTokenBudget !== undefined) caps.tokens = Math.min(caps.tokens ?? Infinity, limits.treeTokenBudget);
  return Object.values(caps).some((value) => value !== undefined) ? caps : undefined;
}

/** Output tokens a budgeted call asks for at least (with thinking, more than its thinking budget). */
export const minBudgetedOutputTokens = 1024;
