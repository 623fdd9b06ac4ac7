import type { MessageParam } from '../model/messages';
import { emptyConversationHash, extendConversationHash } from '../model/conversation-hash';
import type { TurnCheckpoint } from '../workspace/checkpoints';

// Turn boundaries (docs/rewind.md): where an agent's conversation can be forked or rewound to.

/** The conversation after `turn` completed turns (0: its opening), and where it is held. */
export interface TurnBoundary {
  turn: number;
  /** The workflow run whose state holds the conversation at this boundary (its `turnConversation` query answers). */
  runId: string;
  /** Messages of the conversation the model saw, and their hash chain's value. */
  messageCount: number;
  hash: string;
  /** The run's projection number (compactions and rewinds so far in it) and transcript-log length: the messages are rebuilt from them. */
  epoch: number;
  logLength: number;
  /** The agent's turn counter (for maxTurns) at the boundary; resumes restart it. */
  loopTurn: number;
  atMs: number;
  /** The workspace at this boundary, when files changed during the turn (or at turn 0). */
  checkpoint?: TurnCheckpoint;
  /** A fork's boundaries up to its branch point are its source's: the agent id they came from. */
  inheritedFrom?: string;
}

/** Input of the `turnConversation` query. */
export interface TurnConversationInput {
  turn: number;
}

/** What a run answers for one of its boundaries: the exact request prefix (system, tools, messages). */
export type TurnConversation =
  | {
      kind: 'conversation';
      turn: number;
      boundary: TurnBoundary;
      systemPrompt: string;
      messages: MessageParam[];
      /** Each message's index in the answering run's transcript log (absent from runs before it was added). */
      logIndices?: number[];
      /** Boundaries 0..turn (a fork inherits them). */
      boundaries: TurnBoundary[];
    }
  /** The boundary is held by an earlier run of the agent (it continued as new since): ask that run. */
  | { kind: 'elsewhere'; runId: string }
  | { kind: 'missing'; reason: string };

/** Where a fork or a rewound run starts from: the source's boundary, then an optional new prompt. */
export interface BranchFrom {
  agentId: string;
  runId: string;
  turn: number;
  messageCount: number;
  hash: string;
  /** The user message that continues the branch; absent: it continues from the boundary as the source did. */
  prompt?: string;
  /** Why: a fork (a new agent) or a rewind of a finished agent (a new run of the same one). */
  reason: 'fork' | 'rewind';
  /** Restore the workspace to this checkpoint first (a fork into its own worktree, or `rewind --files`). */
  restore?: { checkpoint: TurnCheckpoint; latest?: TurnCheckpoint };
}

/** The hash chain of `messages`, as the workflow's Conversation computes it. */
export function conversationHashOf(messages: readonly MessageParam[]): string {
  let hash = emptyConversationHash;
  for (const message of messages) hash = extendConversationHash(hash, message);
  return hash;
}

/** The boundary numbered `turn`, or a message that says which turns exist. */
export function findBoundary(
  boundaries: readonly TurnBoundary[],
  turn: number,
  agentId: string,
): TurnBoundary | string {
  if (boundaries.length === 0)
    return `agent ${agentId} has no turn boundaries recorded (it started before turn checkpoints existed, or has not started).`;
  if (!Number.isInteger(turn) || turn < 0)
    return `turn must be a whole number from 0 (the opening) to ${lastTurn(boundaries)}; got ${turn}.`;
  const found = boundaries.find((boundary) => boundary.turn === turn);
  if (found) return found;
  if (boundaries.length === 0)
    return `agent ${agentId} has no turn boundaries recorded (it started before turn checkpoints existed, or has not started).`;
  return `agent ${agentId} has turns 0 to ${lastTurn(boundaries)}; there is no turn ${turn}.`;
}

export function lastTurn(boundaries: readonly TurnBoundary[]): number {
  return boundaries.length === 0 ? -1 : boundaries[boundaries.length - 1]!.turn;
}

/** The workspace as of `turn`: the latest checkpoint at or before it, else a later baseline (nothing was written before it). */
export function checkpointAsOf(boundaries: readonly TurnBoundary[], turn: number): TurnCheckpoint | undefined {
  let found: TurnCheckpoint | undefined;
  for (const boundary of boundaries) {
    if (boundary.turn > turn) {
      if (found) return found;
      // Nothing at or before the turn: the first checkpoint later stands for it only if it is a baseline.
      if (boundary.checkpoint) return boundary.checkpoint.baseline ? boundary.checkpoint : undefined;
      continue;
    }
    if (boundary.checkpoint) found = boundary.checkpoint;
  }
  return found;
}

/** The agent's own latest checkpoint (the workspace as it left it). */
export function latestCheckpoint(boundaries: readonly TurnBoundary[]): TurnCheckpoint | undefined {
  return checkpointAsOf(boundaries, Number.POSITIVE_INFINITY);
}

/** True when a conversation ends with the model's answer (an assistant message without tool calls): a branch without a prompt has nothing to run. */
export function endsWithAnswer(messages: readonly MessageParam[]): boolean {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return false;
  return typeof last.content === 'string' || !last.content.some((block) => block.type === 'tool_use');
}
