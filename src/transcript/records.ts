import type { AgentTranscript, TranscriptRecord } from './transcript-types';
import { transcriptUuid } from './uuid';

/** The JSONL records of one agent: its meta record, then one record per message chained by parentUuid. */
export function transcriptRecords(transcript: AgentTranscript): TranscriptRecord[] {
  const { agentId, depth } = transcript.meta;
  const records: TranscriptRecord[] = [transcript.meta];
  let parentUuid: string | null = null;
  for (const [index, { message, timestampMs }] of transcript.messages.entries()) {
    const uuid = transcriptUuid(agentId, index);
    records.push({
      type: message.role,
      uuid,
      parentUuid,
      isSidechain: depth > 0,
      agentId,
      timestamp: new Date(timestampMs).toISOString(),
      message: { role: message.role, content: message.content },
    });
    parentUuid = uuid;
  }
  return records;
}

/** JSONL text (one record per line, trailing newline) of one or more agents, in the given order. */
export function toJsonl(transcripts: readonly AgentTranscript[]): string {
  return transcripts.flatMap((transcript) => transcriptRecords(transcript).map((record) => `${JSON.stringify(record)}\n`)).join('');
}
