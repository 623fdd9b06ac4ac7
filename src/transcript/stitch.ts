import type { CompactionRecord } from '../shared/model/compaction';
import type { MessageParam } from '../shared/model/messages';
import type { TranscriptBoundary, TranscriptCopy, TranscriptRewind } from '../shared/protocol/run-transcript';

/** One run's whole transcript log (all pages of the `transcript` query). */
export interface RunLog {
  /** The run's id: a later run's copies of its messages name it. */
  runId?: string;
  messages: MessageParam[];
  carriedCount: number;
  boundaries: TranscriptBoundary[];
  current: number[];
  turnMarks?: { turn: number; lastIndex: number }[];
  copies?: TranscriptCopy[];
  rewinds?: TranscriptRewind[];
}

/** A compaction in the joined transcript: indices are positions in the joined message list. */
export interface StitchedBoundary {
  summaryIndex: number;
  keptIndices: number[];
  lastIndexBefore: number;
  record: CompactionRecord;
}

/** An agent's whole transcript over all its runs: every message once, in order, and its compactions. */
export interface StitchedTranscript {
  messages: MessageParam[];
  boundaries: StitchedBoundary[];
  /** Messages the earliest run was started with (a fork's copied history, a resumed conversation). */
  inheritedCount: number;
  /** Where each recorded turn ends: after message `afterIndex` (docs/rewind.md); the latest mark of a turn wins. */
  turns: { turn: number; afterIndex: number }[];
  /** Where the conversation went back to turn `turn`: after message `afterIndex`; what follows goes on from that turn. */
  rewinds: { turn: number; afterIndex: number; by?: string }[];
}

const same = (left: MessageParam | undefined, right: MessageParam): boolean =>
  left !== undefined && JSON.stringify(left) === JSON.stringify(right);

/** Joined positions of a run's log messages that copy an earlier run's (a rewind to its boundary), by log index. */
function copiedPositions(run: RunLog, positionsByRun: ReadonlyMap<string, readonly number[]>): Map<number, number> {
  const copied = new Map<number, number>();
  for (const copy of run.copies ?? []) {
    const source = positionsByRun.get(copy.runId);
    if (!source || !Array.isArray(copy.logIndices)) continue;
    copy.logIndices.forEach((logIndex, offset) => {
      const position = source[logIndex];
      if (position !== undefined) copied.set(copy.from + offset, position);
    });
  }
  return copied;
}

/**
 * Joins an agent's run logs oldest first: equal carried messages once, changed ones replaced, dropped ones left out,
 * and a rewound run's copy of an earlier run's messages shown once, where that run had them.
 */
export function stitchRuns(runs: readonly RunLog[]): StitchedTranscript {
  const joined: (MessageParam | undefined)[] = [];
  const boundaries: StitchedBoundary[] = [];
  const turnEnds = new Map<number, number>();
  const rewinds: { turn: number; position: number; by?: string }[] = [];
  const positionsByRun = new Map<string, number[]>();
  let previousCurrent: number[] = [];
  for (const run of runs) {
    const copied = copiedPositions(run, positionsByRun);
    const lastBefore = joined.length - 1;
    const positions: number[] = [];
    run.messages.forEach((message, index) => {
      const earlier = index < run.carriedCount ? previousCurrent[index] : undefined;
      if (earlier !== undefined) {
        if (!same(joined[earlier], message)) joined[earlier] = message;
        positions.push(earlier);
        return;
      }
      // A copy that does not match what it names (it should not happen) is shown rather than lost.
      const copy = copied.get(index);
      if (copy !== undefined && same(joined[copy], message)) {
        positions.push(copy);
        return;
      }
      joined.push(message);
      positions.push(joined.length - 1);
    });
    // The previous run's last messages that this run did not carry (a resume dropped them); a run that starts
    // rewound (a finished agent's rewind) dropped nothing: the turns it left stay, as after a rewind in place.
    const startsRewound = (run.rewinds ?? []).some((rewind) => rewind.lastIndex < 0);
    if (!startsRewound)
      for (const dropped of previousCurrent.slice(Math.min(run.carriedCount, previousCurrent.length)))
        joined[dropped] = undefined;
    for (const boundary of run.boundaries) {
      boundaries.push({
        summaryIndex: positions[boundary.summaryIndex]!,
        keptIndices: boundary.keptIndices.map((index) => positions[index]!),
        lastIndexBefore: positions[boundary.lastIndexBefore] ?? -1,
        record: boundary.record,
      });
    }
    for (const rewind of run.rewinds ?? []) {
      // Earlier runs' marks of later turns belong to the turns it left (this run's own marks are its current ones).
      for (const turn of [...turnEnds.keys()]) if (turn > rewind.turn) turnEnds.delete(turn);
      const position = rewind.lastIndex < 0 ? lastBefore : (positions[rewind.lastIndex] ?? lastBefore);
      rewinds.push({ turn: rewind.turn, position, ...(rewind.by !== undefined ? { by: rewind.by } : {}) });
    }
    for (const mark of run.turnMarks ?? []) {
      const position = positions[mark.lastIndex];
      if (position !== undefined) turnEnds.set(mark.turn, position);
    }
    if (run.runId !== undefined) positionsByRun.set(run.runId, positions);
    previousCurrent = run.current.map((index) => positions[index]!);
  }
  // Close the gaps left by dropped messages, renumbering the boundaries.
  const renumbered: number[] = [];
  const messages: MessageParam[] = [];
  joined.forEach((message, index) => {
    renumbered[index] = messages.length;
    if (message) messages.push(message);
  });
  const at = (index: number) => (index < 0 ? -1 : renumbered[index]!);
  // After the last message still shown at or before `index`.
  const after = (index: number) => (index < 0 ? -1 : at(index) - (joined[index] ? 0 : 1));
  return {
    messages,
    boundaries: boundaries.map((boundary) => ({
      summaryIndex: at(boundary.summaryIndex),
      keptIndices: boundary.keptIndices.filter((index) => joined[index] !== undefined).map(at),
      lastIndexBefore: after(boundary.lastIndexBefore),
      record: boundary.record,
    })),
    inheritedCount: runs[0]?.carriedCount ?? 0,
    turns: [...turnEnds]
      .filter(([, index]) => joined[index] !== undefined)
      .map(([turn, index]) => ({ turn, afterIndex: at(index) }))
      .sort((left, right) => left.afterIndex - right.afterIndex || left.turn - right.turn),
    rewinds: rewinds.map(({ position, ...rewind }) => ({ ...rewind, afterIndex: after(position) })),
  };
}
