import type { BudgetCaps, TreeBudget } from '../budget/budget';

/**
 * Every limit of an agent tree and its defaults, in one place (docs/architecture.md, Limits). The
 * checks against them live in src/workflows/tree/spawn-limits.ts; activity timeouts in
 * src/workflows/runtime/activity-proxies.ts; the tools' own limits in toolLimits (src/shared/tools/tool-definitions.ts).
 */

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
  /**
   * What an Agent call without subagent_type starts: a fork when true, a general-purpose agent when
   * false (default, as Claude Code outside its fork mode). `subagent_type: "fork"` always forks.
   */
  forking: boolean;
  /**
   * Continue-as-new at a turn boundary once the run's history has this many events (besides when
   * Temporal suggests it). Default 10000 (Temporal warns at 10240 and stops at 51200).
   */
  continueAsNewAfterEvents: number;
  /**
   * Continue-as-new at a turn boundary once the run's history is this many bytes. Default 4 MiB
   * (Temporal suggests it at 4 MB, warns at 10 MB and stops at 50 MB). Absent in inputs made before it existed.
   */
  continueAsNewAfterHistoryBytes?: number;
  /**
   * Compact the conversation when the next request would pass this fraction of the model's context
   * window. Default 0.8. Absent in inputs made before it existed.
   */
  compactAtFraction?: number;
  /** The context window to assume, for a model the runtime's table does not know (src/shared/model/context-windows.ts). */
  contextWindowTokens?: number;
  /**
   * Lease of a claim on the task board, for a board this tree creates (docs/board.md). Default
   * boardLimits.defaultLeaseMs (60000); the board's other numbers are in src/shared/board/board-limits.ts.
   */
  boardLeaseMs?: number;
  /**
   * An agent with no progress (no state change: model call, tool started or done, waiting) for this
   * long is reported as stalled (docs/architecture.md, Stall watchdog). Default 600000 (Claude Code's
   * background stall timeout); absent in inputs made before the watchdog, which then use the default.
   */
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

/**
 * What keeps a long agent's state carriable (docs/architecture.md, Long sessions). Temporal refuses
 * a payload over 2 MB, and continue-as-new carries the conversation in one payload, so the
 * conversation is compacted before its JSON passes `maxConversationBytes` whatever the model's window,
 * and a single message larger than a quarter of that (or of the context window) is refused.
 */
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
  /**
   * New messages of at most this many JSON bytes ride in the model call's input (docs/architecture.md,
   * "The conversation by reference"): the worker that already holds the rest appends them instead of
   * asking the workflow by query, at the price of recording them in history a second time.
   */
  maxInlineTailBytes: 8 * 1024,
  /**
   * JSON characters of outcomes a model call's answer carries at most for the file reads it started
   * (docs/architecture.md, "Reads with the model call"); calls past it run after the model call, as before.
   */
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

/**
 * How long a cancelled subagent waits for its stop notice (who stopped it and why), which its parent
 * sends together with the cancellation and may arrive just after it (src/workflows/tree/stop-delivery.ts).
 */
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
} as const;

/** The tree's caps, `treeTokenBudget` folded in; undefined when the tree has none. */
export function treeCapsOf(limits: Pick<AgentLimits, 'treeTokenBudget' | 'budget'>): BudgetCaps | undefined {
  const caps: BudgetCaps = { ...limits.budget?.caps };
  if (limits.treeTokenBudget !== undefined) caps.tokens = Math.min(caps.tokens ?? Infinity, limits.treeTokenBudget);
  return Object.values(caps).some((value) => value !== undefined) ? caps : undefined;
}

/** Output tokens a budgeted call asks for at least (with thinking, more than its thinking budget). */
export const minBudgetedOutputTokens = 1024;
