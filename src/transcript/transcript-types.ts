import type { CompactionRecord } from '../shared/model/compaction';
import type { MessageParam, StopReason } from '../shared/model/messages';
import type { ModelCallFacts } from './timeline';

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
  /** The agent's working directory (its worktree's when it has one). */
  cwd: string | null;
  /** The git branch of `cwd` when the transcript was read ('' outside a repository). */
  gitBranch: string;
}

/** Usage of an assistant record, in the API's (and Claude Code's) snake_case. */
export interface TranscriptUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  server_tool_use?: { web_search_requests: number };
}

/** An assistant record's message: the API message as Claude Code stores it. */
export interface TranscriptAssistantMessage {
  /** Absent on messages an agent inherited (a fork's copied history): they were another agent's calls. */
  id?: string;
  type?: 'message';
  role: 'assistant';
  model?: string;
  content: MessageParam['content'];
  stop_reason?: StopReason;
  stop_sequence?: null;
  usage?: TranscriptUsage;
}

/** One message of a transcript, in Claude Code's record shape (docs/transcripts.md, Record schema). */
export interface TranscriptMessageRecord {
  parentUuid: string | null;
  isSidechain: boolean;
  userType: 'external';
  cwd: string;
  sessionId: string;
  version: string;
  gitBranch: string;
  agentId: string;
  type: 'user' | 'assistant';
  message: MessageParam | TranscriptAssistantMessage;
  /** The API's request id of an assistant message's model call. */
  requestId?: string;
  uuid: string;
  /** ISO 8601. */
  timestamp: string;
  /** The message that opens a compacted conversation (the summary), right after its boundary record. */
  isCompactSummary?: true;
}

/** Where a compaction happened, in Claude Code's `compact_boundary` shape (a new chain; the summary follows). */
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

/** What every record of one exported session shares. */
export interface TranscriptSession {
  /** A uuid derived from the root agent's id. */
  sessionId: string;
  /** This runtime's version (package.json). */
  version: string;
}

export type TranscriptRecord = TranscriptMetaRecord | TranscriptMessageRecord | TranscriptBoundaryRecord;

/** An agent's conversation with the time of each message, read from its workflow. */
export interface AgentTranscript {
  meta: TranscriptMetaRecord;
  messages: { message: MessageParam; timestampMs: number; call?: ModelCallFacts }[];
  /** Its compactions: before message `summaryIndex` (the summary) the conversation was compacted. */
  compactions: { summaryIndex: number; keptIndices: number[]; lastIndexBefore: number; record: CompactionRecord }[];
  /** Where each turn boundary falls (docs/rewind.md): turn N ends after message `afterIndex` (absent: none recorded). */
  turns?: { turn: number; afterIndex: number }[];
  /** Where it went back to an earlier turn (docs/rewind.md): after message `afterIndex` (absent: never). */
  rewinds?: { turn: number; afterIndex: number; by?: string }[];
  /** Run ids the transcript was read from, oldest first (more than one after continue-as-new or resume). */
  runIds: string[];
  /** Children started by the agent (workflow ids), in order. */
  childIds: string[];
}
