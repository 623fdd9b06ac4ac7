import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { FileChange } from '../workspace/checkpoints';
import type { TurnBoundary, TurnConversation, TurnConversationInput } from './turns';

// Queries and updates of fork and rewind (docs/rewind.md); their names are public, like the others'.

/** One boundary's exact conversation, from the run that holds it. */
export const turnConversationQuery = defineQuery<TurnConversation, [TurnConversationInput]>('turnConversation');

/** An agent's turn boundaries and whether its workspace is checkpointed. */
export interface TurnsSnapshot {
  agentId: string;
  boundaries: TurnBoundary[];
  /** Why files are not checkpointed (absent: they are, or the agent has no tool that writes). */
  checkpointsUnavailable?: string;
  /** Whether its tools can change files (only then are checkpoints taken). */
  writesFiles: boolean;
}
export const turnsQuery = defineQuery<TurnsSnapshot>('turns');

/** `subagents rewind` of a running agent. */
export interface RewindInput {
  turn: number;
  /** Also return the workspace to the checkpoint as of the turn. */
  files?: boolean;
  /** A user message that continues the conversation from the turn. */
  prompt?: string;
  by?: string;
}
export interface RewindAck {
  agentId: string;
  turn: number;
  /** Boundaries dropped (the turns after `turn`). */
  droppedTurns: number;
  /** Children started after the turn, stopped. */
  stoppedChildren: string[];
  /** Board tasks it had claimed after the turn, released. */
  releasedTasks: string[];
  /** Files written or deleted to return to the checkpoint (with `files`). */
  restoredFiles: FileChange[];
}
export const rewindUpdate = defineUpdate<RewindAck, [RewindInput]>('rewind');

/** `subagents fork` of a subagent placed in its tree: sent to the source's parent, which starts the fork as its child. */
export interface ForkSubagentInput {
  sourceAgentId: string;
  turn: number;
  prompt?: string;
  cwd?: string;
  worktree?: boolean;
  by?: string;
}
export interface ForkAck {
  agentId: string;
  /** The parent that started it (absent: a new root). */
  startedBy?: string;
  /** The boundary it branched from. */
  turn: number;
  sourceAgentId: string;
}
export const forkSubagentUpdate = defineUpdate<ForkAck, [ForkSubagentInput]>('forkSubagent');
