import type { CompactionRecord } from '../shared/model/compaction';
import type { MessageParam } from '../shared/model/messages';
import type { TranscriptBoundary } from '../shared/protocol/run-transcript';

/** One run's whole transcript log (all pages of the `transcript` query). */
export interface RunLog {
  messages: MessageParam[];
  carriedCount: number;
  boundaries: TranscriptBoundary[];
  current: number[];
  turnMarks?: { turn: number; lastIndex: number }[];
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
}

const same = (left: MessageParam | undefined, right: MessageParam): boolean =>
  left !== undefined && JSON.stringify(left) === JSON.stringify(right);

/** Joins an agent's run logs oldest first: equal carried messages once, changed ones replaced, dropped ones left out. */
export function stitchRuns(runs: readonly RunLog[]): StitchedTranscript {
  const joined: (MessageParam | undefined)[] = [];
  const boundaries: StitchedBoundary[] = [];
  const turnEnds = new Map<number, number>();
  let previousCurrent: number[] = [];
  for (const run of runs) {
    const positions: number[] = [];
    run.messages.forEach((message, index) => {
      const earlier = index < run.carriedCount ? previousCurrent[index] : undefined;
      if (earlier !== undefined) {
        if (!same(joined[earlier], message)) joined[earlier] = message;
        positions.push(earlier);
        return;
      }
      joined.push(message);
      positions.push(joined.length - 1);
    });
    // The previous run's last messages that this run did not carry (a resume dropped them).
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
    for (const mark of run.turnMarks ?? []) {
      const position = positions[mark.lastIndex];
      if (position !== undefined) turnEnds.set(mark.turn, position);
    }
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
  return {
    messages,
    boundaries: boundaries.map((boundary) => ({
      summaryIndex: at(boundary.summaryIndex),
      keptIndices: boundary.keptIndices.filter((index) => joined[index] !== undefined).map(at),
      lastIndexBefore:
        boundary.lastIndexBefore < 0 ? -1 : at(boundary.lastIndexBefore) - (joined[boundary.lastIndexBefore] ? 0 : 1),
      record: boundary.record,
    })),
    inheritedCount: runs[0]?.carriedCount ?? 0,
    turns: [...turnEnds]
      .filter(([, index]) => joined[index] !== undefined)
      .map(([turn, index]) => ({ turn, afterIndex: at(index) }))
      .sort((left, right) => left.afterIndex - right.afterIndex || left.turn - right.turn),
  };
}
