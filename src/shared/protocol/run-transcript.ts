import type { CompactionRecord } from '../model/compaction';
import type { MessageParam } from '../model/messages';

/** One run's every message with its compaction boundaries (`transcript` query); compaction never removes from it. */
export interface TranscriptBoundary {
  /** Index (in the run's log) of the summary message that opens the compacted conversation. */
  summaryIndex: number;
  /** Log indices of the recent messages kept verbatim after the summary. */
  keptIndices: number[];
  /** Log index of the last message before the compaction (the logical parent of the boundary). */
  lastIndexBefore: number;
  record: CompactionRecord;
}

/** A page of one run's transcript. */
export interface RunTranscriptSlice {
  /** Messages of the log from `from` on (as many as fit in one answer; `total` says how many exist). */
  messages: MessageParam[];
  from: number;
  total: number;
  /** The first `carriedCount` log messages came with the run's input (continue-as-new, resume). */
  carriedCount: number;
  boundaries: TranscriptBoundary[];
  /** Log indices of the conversation the model sees now (after the last compaction). */
  current: number[];
  /** Turn boundaries this run recorded (docs/rewind.md): turn N ends after log message `lastIndex`. */
  turnMarks?: { turn: number; lastIndex: number }[];
}

/** Input of the transcript query. */
export interface TranscriptQueryInput {
  from: number;
}

/** At most this many JSON characters of messages per transcript answer (a query answer must stay under gRPC's 4 MB). */
export const transcriptPageChars = 1_000_000;
