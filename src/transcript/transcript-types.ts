import type { MessageParam } from '../shared/messages';

/** A subagent's worktree as the transcript reports it. */
export interface TranscriptWorktree {
  path: string;
  branch: string;
}

/** First record of an agent's JSONL transcript: who the agent is and where it sits in its tree. */
export interface TranscriptMetaRecord {
  type: 'meta';
  agentId: string;
  agentType: string;
  description: string | null;
  parentAgentId: string | null;
  parentToolUseId: string | null;
  depth: number;
  model: string;
  worktree: TranscriptWorktree | null;
}

/** One message of a transcript, in Claude Code's sidechain record shape. */
export interface TranscriptMessageRecord {
  type: 'user' | 'assistant';
  uuid: string;
  parentUuid: string | null;
  isSidechain: boolean;
  agentId: string;
  /** ISO 8601. */
  timestamp: string;
  message: MessageParam;
}

export type TranscriptRecord = TranscriptMetaRecord | TranscriptMessageRecord;

/** An agent's conversation with the time of each message, read from its workflow. */
export interface AgentTranscript {
  meta: TranscriptMetaRecord;
  messages: { message: MessageParam; timestampMs: number }[];
  /** Run ids the transcript was read from, oldest first (more than one after continue-as-new or resume). */
  runIds: string[];
  /** Children started by the agent (workflow ids), in order. */
  childIds: string[];
}
