/** How `subagents diff` and `subagents turns` show branches and turn boundaries (docs/rewind.md). Pure. */
import type { BranchDiff, BranchDiffSide, BranchTurn } from '../shared/rewind/branch-diff';
import type { TurnBoundary } from '../shared/rewind/turns';
import type { FileChange, TurnCheckpoint } from '../shared/workspace/checkpoints';
import { formatTable } from './table';

/** Paths of a turn's checkpoint listed before "… and N more". */
const listedFiles = 5;

/** A time as ISO 8601, or `?` for a value that is not one (a boundary is data from a query). */
function isoTime(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '?';
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? '?' : date.toISOString();
}

/** The first 7 characters of a checkpoint's commit. */
const shortSha = (checkpoint: TurnCheckpoint): string => String(checkpoint.commit).slice(0, 7);

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Text from an agent on one line (an agent's words may hold newlines and control characters). */
const oneLine = (text: string): string =>
  text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function turnRange(lastTurn: number): string {
  if (lastTurn < 0) return 'no turns recorded';
  return lastTurn === 0 ? 'turn 0' : `turns 0–${lastTurn}`;
}

function filesText(files: NonNullable<BranchTurn['files']>): string {
  const shown = files.changed.slice(0, listedFiles).map(oneLine);
  const more = files.changedCount - shown.length;
  if (shown.length === 0) return plural(files.changedCount, 'file');
  return `${shown.join(', ')}${more > 0 ? ` … and ${more} more` : ''}`;
}

/** One turn: its number and time, then its tool calls, the text it ended with and its files, indented. */
function turnLines(turn: BranchTurn): string[] {
  const lines = [`  turn ${turn.turn} · ${isoTime(turn.atMs)}`];
  const content = turn.content;
  switch (content.kind) {
    case 'unavailable':
      lines.push(`    messages not available: ${content.reason}`);
      break;
    case 'messages':
      if (content.toolCalls.length === 0) lines.push('    no tool calls');
      for (const call of content.toolCalls) lines.push(`    → ${oneLine(call.summary)}`);
      if (content.text !== undefined)
        lines.push(`    text: "${oneLine(content.text)}${content.textTruncated ? '…' : ''}"`);
      break;
  }
  if (turn.files) lines.push(`    files: ${filesText(turn.files)}`);
  return lines;
}

function sideLines(label: string, side: BranchDiffSide, sharedThrough: number): string[] {
  const after = sharedThrough < 0 ? 'from its start' : `after turn ${sharedThrough}`;
  if (side.turns.length === 0) return [`${label} ${side.agentId}: no turns ${after}.`];
  return [`${label} ${side.agentId}: ${plural(side.turns.length, 'turn')} ${after}`, ...side.turns.flatMap(turnLines)];
}

const statusLetter: Record<FileChange['status'], string> = { added: 'A', modified: 'M', deleted: 'D' };

function checkpointText(checkpoint: TurnCheckpoint): string {
  return `turn ${checkpoint.turn}, ${shortSha(checkpoint)}`;
}

/** The latest files of each side: the changes from A's to B's, or why they are not shown. */
function fileComparisonLines(diff: BranchDiff, files: FileChange[] | { unavailable: string } | undefined): string[] {
  const { filesA, filesB } = diff;
  if (!filesA && !filesB) return ['files: neither side has a checkpoint of its files.'];
  if (!filesA || !filesB) {
    const [has, lacks] = filesA ? [diff.a, diff.b] : [diff.b, diff.a];
    return [
      `files: only ${has.agentId} has a checkpoint (${checkpointText((filesA ?? filesB)!)}); ${lacks.agentId} has none to compare with.`,
    ];
  }
  const header = `files, from ${diff.a.agentId}'s latest checkpoint (${checkpointText(filesA)}) to ${diff.b.agentId}'s (${checkpointText(filesB)})`;
  if (filesA.tree === filesB.tree) return [`${header}: the same.`];
  if (files === undefined) return [`${header}: not compared.`];
  if (!Array.isArray(files)) return [`${header}: not available: ${oneLine(files.unavailable)}`];
  if (files.length === 0) return [`${header}: the same.`];
  return [
    `${header}: ${plural(files.length, 'file')} differ`,
    ...files.map((change) => `  ${statusLetter[change.status] ?? '?'} ${oneLine(change.path)}`),
  ];
}

/** `subagents diff A B`: the shared prefix, each side's own turns, then how their latest files differ. */
export function renderBranchDiff(diff: BranchDiff, files?: FileChange[] | { unavailable: string }): string {
  const shared =
    diff.sharedThrough < 0
      ? `${diff.a.agentId} and ${diff.b.agentId} share no turn (not branches of one agent, or they differ from the opening).`
      : `${diff.a.agentId} and ${diff.b.agentId} share turns 0–${diff.sharedThrough}` +
        (diff.sharedFrom ? ` (recorded by ${diff.sharedFrom})` : '') +
        '.';
  return [
    `A: ${diff.a.agentId} (${turnRange(diff.a.lastTurn)}) · B: ${diff.b.agentId} (${turnRange(diff.b.lastTurn)})`,
    shared,
    '',
    ...sideLines('A', diff.a, diff.sharedThrough),
    '',
    ...sideLines('B', diff.b, diff.sharedThrough),
    '',
    ...fileComparisonLines(diff, files),
  ].join('\n');
}

function checkpointCell(checkpoint: TurnCheckpoint | undefined): string {
  if (!checkpoint) return '-';
  const count = typeof checkpoint.changedCount === 'number' ? checkpoint.changedCount : 0;
  return `${shortSha(checkpoint)} ${plural(count, 'file')}`;
}

/** `subagents turns <agentId>`: one row per turn boundary, then `note` (e.g. why files are not checkpointed). */
export function renderTurns(agentId: string, boundaries: TurnBoundary[], note?: string): string {
  const lines =
    boundaries.length === 0
      ? [
          `Agent ${agentId} has no turn boundaries recorded (it started before turn checkpoints existed, or has not started).`,
        ]
      : [
          `Agent ${agentId}: ${turnRange(boundaries[boundaries.length - 1]!.turn)}`,
          ...formatTable([
            ['TURN', 'TIME', 'MESSAGES', 'CHECKPOINT', 'INHERITED FROM'],
            ...boundaries.map((boundary) => [
              String(boundary.turn),
              isoTime(boundary.atMs),
              String(boundary.messageCount),
              checkpointCell(boundary.checkpoint),
              boundary.inheritedFrom ? oneLine(boundary.inheritedFrom) : '-',
            ]),
          ]),
        ];
  if (note) lines.push('', oneLine(note));
  return lines.join('\n');
}
