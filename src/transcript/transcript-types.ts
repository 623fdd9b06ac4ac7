import type { CompactionRecord } from '../shared/compaction';
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
  /** The message that opens a compacted conversation (the summary), right after its boundary record. */
  isCompactSummary?: true;
}

/**
 * Where a compaction happened, in Claude Code's `compact_boundary` shape: it starts a new chain
 * (`parentUuid` null; `logicalParentUuid` is the last message before it); the summary message
 * follows, and the recent messages kept verbatim are listed by uuid (they appear earlier in the file).
 */
export interface TranscriptBoundaryRecord {
  type: 'system';
  subtype: 'compact_boundary';
  uuid: string;
  parentUuid: null;
  logicalParentUuid: string | null;
  isSidechain: boolean;
  agentId: string;
  timestamp: string;
  content: 'Conversation compacted';
  compactMetadata: {
    trigger: CompactionRecord['trigger'];
    preTokens: number;
    postTokens: number;
    summarisedMessages: number;
    preservedMessages: { uuids: string[] };
    fallback?: string;
  };
}

export type TranscriptRecord = TranscriptMetaRecord | TranscriptMessageRecord | TranscriptBoundaryRecord;

/** An agent's conversation with the time of each message, read from its workflow. */
export interface AgentTranscript {
  meta: TranscriptMetaRecord;
  messages: { message: MessageParam; timestampMs: number }[];
  /** Its compactions: before message `summaryIndex` (the summary) the conversation was compacted. */
  compactions: { summaryIndex: number; keptIndices: number[]; lastIndexBefore: number; record: CompactionRecord }[];
  /** Run ids the transcript was read from, oldest first (more than one after continue-as-new or resume). */
  runIds: string[];
  /** Children started by the agent (workflow ids), in order. */
  childIds: string[];
}
