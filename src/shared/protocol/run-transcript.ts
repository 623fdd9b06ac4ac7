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

/** Log messages [from, from + logIndices.length) repeat run `runId`'s log messages `logIndices` (a rewind to its boundary). */
export interface TranscriptCopy {
  from: number;
  runId: string;
  logIndices: number[];
}

/** After log message `lastIndex` (-1: before the first) the conversation went back to turn `turn` (docs/rewind.md). */
export interface TranscriptRewind {
  turn: number;
  lastIndex: number;
  /** Who asked for it, when the run knows. */
  by?: string;
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
  /** Stretches of the log that repeat an earlier run's messages (absent: none). */
  copies?: TranscriptCopy[];
  /** The rewinds of this run, where they happened in its log (absent: none). */
  rewinds?: TranscriptRewind[];
}

/** Input of the transcript query. */
export interface TranscriptQueryInput {
  from: number;
}

/** At most this many JSON characters of messages per transcript answer (a query answer must stay under gRPC's 4 MB). */
export const transcriptPageChars = 1_000_000;
