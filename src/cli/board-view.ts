import type { BoardSnapshot, BoardTask, TaskStatus } from '../shared/board/board';
import { clipToWidth, padCell } from './table';

/** The board drawn as four columns for `subagents board` (docs/cli.md): pure, so it is unit-tested. */

const columns: { status: TaskStatus; title: string }[] = [
  { status: 'pending', title: 'PENDING' },
  { status: 'in_progress', title: 'IN PROGRESS' },
  { status: 'blocked', title: 'BLOCKED' },
  { status: 'completed', title: 'COMPLETED' },
];

const clip = (text: string, width: number): string => padCell(clipToWidth(text, width), width);

/** The lines of one card: `#3 subject`, then who has it or what it waits for. */
function card(task: BoardTask, tasks: readonly BoardTask[]): string[] {
  const lines = [`#${task.id} ${task.subject}`];
  const open = task.blockedBy.filter((id) => tasks.find((candidate) => candidate.id === id)?.status !== 'completed');
  if (task.status === 'pending' && open.length > 0) lines.push(`  waits for ${open.map((id) => `#${id}`).join(' ')}`);
  if (task.owner) lines.push(`  ${task.status === 'pending' ? 'for' : 'by'} ${task.owner}`);
  if (task.status === 'blocked' && task.note) lines.push(`  ${task.note}`);
  if (task.returnedCount > 0) lines.push(`  returned ×${task.returnedCount}`);
  return lines;
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

/** The whole board, `width` characters wide, with its last `events` events. */
export function renderBoard(snapshot: BoardSnapshot, options: { width?: number; events?: number } = {}): string {
  const width = Math.max(60, options.width ?? 120);
  const columnWidth = Math.floor((width - 3 * (columns.length - 1)) / columns.length);
  const { counts, config } = snapshot;
  const header =
    `Task board ${config.boardId} · lease ${config.leaseMs / 1000}s · ${snapshot.tasks.length} tasks: ` +
    `${counts.pending} pending (${counts.ready} ready, ${counts.waiting} waiting), ${counts.in_progress} in progress, ${counts.blocked} blocked, ${counts.completed} completed`;
  const cells = columns.map(({ status, title }) => [
    `${title} (${snapshot.tasks.filter((task) => task.status === status).length})`,
    '─'.repeat(columnWidth),
    ...snapshot.tasks.filter((task) => task.status === status).flatMap((task) => card(task, snapshot.tasks)),
  ]);
  const rows = Math.max(...cells.map((cell) => cell.length));
  const lines = [header, ''];
  for (let row = 0; row < rows; row++)
    lines.push(
      cells
        .map((cell) => clip(cell[row] ?? '', columnWidth))
        .join(' │ ')
        .trimEnd(),
    );
  const recent = snapshot.events.slice(-(options.events ?? 8));
  if (recent.length > 0) {
    lines.push('', 'Recent events:');
    for (const event of recent)
      lines.push(
        `  ${clock(event.atMs)} ${event.kind} #${event.taskId} by ${event.by}${event.text ? `: ${event.text}` : ''}`,
      );
  }
  return lines.join('\n');
}
