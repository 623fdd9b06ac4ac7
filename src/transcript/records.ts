import { createRequire } from 'node:module';
import type { MessageParam } from '../shared/model/messages';
import type { ModelCallFacts } from './timeline';
import type {
  AgentTranscript,
  TranscriptAssistantMessage,
  TranscriptBoundaryRecord,
  TranscriptMessageRecord,
  TranscriptRecord,
  TranscriptSession,
} from './transcript-types';
import { transcriptUuid } from './uuid';

const packageVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** The session of an export whose first agent is `rootAgentId`: its id and this runtime's version. */
export function transcriptSession(rootAgentId: string): TranscriptSession {
  return { sessionId: transcriptUuid(rootAgentId, -1), version: packageVersion };
}

function assistantMessage(message: MessageParam, call: ModelCallFacts | undefined): TranscriptAssistantMessage {
  if (!call) return { role: 'assistant', content: message.content };
  const { usage } = call;
  return {
    id: call.id,
    type: 'message',
    role: 'assistant',
    model: call.model,
    content: message.content,
    stop_reason: call.stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: usage.cacheCreationInputTokens,
      cache_read_input_tokens: usage.cacheReadInputTokens,
      output_tokens: usage.outputTokens,
      ...(usage.webSearchRequests ? { server_tool_use: { web_search_requests: usage.webSearchRequests } } : {}),
    },
  };
}

/** One agent's message records chained by parentUuid; a compaction starts a new chain, as in Claude Code. */
export function messageRecords(
  transcript: AgentTranscript,
  session: TranscriptSession,
): (TranscriptMessageRecord | TranscriptBoundaryRecord)[] {
  const { agentId, depth, cwd, gitBranch } = transcript.meta;
  const records: (TranscriptMessageRecord | TranscriptBoundaryRecord)[] = [];
  const boundaries = new Map(
    (transcript.compactions ?? []).map((compaction, index) => [compaction.summaryIndex, { compaction, index }]),
  );
  let parentUuid: string | null = null;
  for (const [index, { message, timestampMs, call }] of transcript.messages.entries()) {
    const boundary = boundaries.get(index);
    if (boundary) {
      const record = boundaryRecord(
        transcript,
        boundary.compaction,
        boundary.index,
        new Date(timestampMs).toISOString(),
      );
      records.push(record);
      parentUuid = record.uuid;
    }
    const uuid = transcriptUuid(agentId, index);
    records.push({
      parentUuid,
      isSidechain: depth > 0,
      userType: 'external',
      cwd: cwd ?? '',
      sessionId: session.sessionId,
      version: session.version,
      gitBranch,
      agentId,
      type: message.role,
      message:
        message.role === 'assistant'
          ? assistantMessage(message, call)
          : { role: message.role, content: message.content },
      ...(call?.requestId ? { requestId: call.requestId } : {}),
      uuid,
      timestamp: new Date(timestampMs).toISOString(),
      ...(boundary ? { isCompactSummary: true as const } : {}),
    });
    parentUuid = uuid;
  }
  return records;
}

/** Claude Code's `compact_boundary` record: a new chain whose logical parent is the last message before it. */
function boundaryRecord(
  transcript: AgentTranscript,
  compaction: AgentTranscript['compactions'][number],
  index: number,
  timestamp: string,
): TranscriptBoundaryRecord {
  const { agentId, depth } = transcript.meta;
  return {
    type: 'system',
    subtype: 'compact_boundary',
    uuid: transcriptUuid(agentId, `compact_boundary:${index}`),
    parentUuid: null,
    logicalParentUuid: compaction.lastIndexBefore >= 0 ? transcriptUuid(agentId, compaction.lastIndexBefore) : null,
    isSidechain: depth > 0,
    agentId,
    timestamp,
    content: 'Conversation compacted',
    compactMetadata: {
      trigger: compaction.record.trigger,
      preTokens: compaction.record.preTokens,
      postTokens: compaction.record.postTokens,
      summarisedMessages: compaction.record.summarisedMessages,
      preservedMessages: { uuids: compaction.keptIndices.map((kept) => transcriptUuid(agentId, kept)) },
      ...(compaction.record.fallback ? { fallback: compaction.record.fallback } : {}),
    },
  };
}

/** The JSONL records of one agent: its meta record, then its message records. */
export function transcriptRecords(transcript: AgentTranscript, session: TranscriptSession): TranscriptRecord[] {
  return [transcript.meta, ...messageRecords(transcript, session)];
}

/** JSONL text (one record per line, trailing newline) of one or more agents, in the given order; the first is the session's root. */
export function toJsonl(transcripts: readonly AgentTranscript[]): string {
  const first = transcripts[0];
  if (!first) return '';
  const session = transcriptSession(first.meta.agentId);
  return transcripts
    .flatMap((transcript) => transcriptRecords(transcript, session).map((record) => `${JSON.stringify(record)}\n`))
    .join('');
}
