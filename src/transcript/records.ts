import type { AgentTranscript, TranscriptRecord } from './transcript-types';
import { transcriptUuid } from './uuid';

/**
 * The JSONL records of one agent: its meta record, then one record per message chained by
 * parentUuid; a compaction adds a `compact_boundary` record that starts a new chain, followed by
 * the summary message.
 */
export function transcriptRecords(transcript: AgentTranscript): TranscriptRecord[] {
  const { agentId, depth } = transcript.meta;
  const records: TranscriptRecord[] = [transcript.meta];
  const boundaries = new Map(transcript.compactions.map((compaction, index) => [compaction.summaryIndex, { compaction, index }]));
  let parentUuid: string | null = null;
  for (const [index, { message, timestampMs }] of transcript.messages.entries()) {
    const timestamp = new Date(timestampMs).toISOString();
    const boundary = boundaries.get(index);
    if (boundary) {
      const { compaction } = boundary;
      const uuid = transcriptUuid(agentId, `compact_boundary:${boundary.index}`);
      records.push({
        type: 'system',
        subtype: 'compact_boundary',
        uuid,
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
      });
      parentUuid = uuid;
    }
    const uuid = transcriptUuid(agentId, index);
    records.push({
      type: message.role,
      uuid,
      parentUuid,
      isSidechain: depth > 0,
      agentId,
      timestamp,
      message: { role: message.role, content: message.content },
      ...(boundary ? { isCompactSummary: true as const } : {}),
    });
    parentUuid = uuid;
  }
  return records;
}

/** JSONL text (one record per line, trailing newline) of one or more agents, in the given order. */
export function toJsonl(transcripts: readonly AgentTranscript[]): string {
  return transcripts.flatMap((transcript) => transcriptRecords(transcript).map((record) => `${JSON.stringify(record)}\n`)).join('');
}
