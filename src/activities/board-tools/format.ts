import type { BoardChangeResult, BoardSnapshot, BoardTask } from '../../shared/board/board';
import type { TaskListFilter } from '../../shared/board/board-requests';

// One line a task in Claude Code's TaskList shape (`#3 [pending] Subject (owner)`), so its prompts read right.

const openBlockersOf = (task: BoardTask, tasks: readonly BoardTask[]): string[] =>
  task.blockedBy.filter((id) => tasks.find((candidate) => candidate.id === id)?.status !== 'completed');

/** One task as one line. */
export function taskLine(task: BoardTask, tasks: readonly BoardTask[]): string {
  const owner = task.owner ? ` (${task.owner})` : '';
  const open = openBlockersOf(task, tasks);
  const blocked = open.length > 0 ? ` [blocked by ${open.map((id) => `#${id}`).join(', ')}]` : '';
  const reason = task.status === 'blocked' && task.note ? ` — ${task.note}` : '';
  return `#${task.id} [${task.status}] ${task.subject}${owner}${blocked}${reason}`;
}

export function formatTaskList(snapshot: BoardSnapshot, filter: TaskListFilter): string {
  const { counts } = snapshot;
  const header =
    `Task board ${snapshot.config.boardId}: ${counts.pending} pending (${counts.ready} ready), ${counts.in_progress} in progress, ` +
    `${counts.blocked} blocked, ${counts.completed} completed.`;
  const shown = snapshot.tasks.filter(
    (task) =>
      (filter.status === undefined || task.status === filter.status) &&
      (filter.owner === undefined || task.owner === filter.owner),
  );
  if (snapshot.tasks.length === 0) return 'No tasks found. TaskCreate adds one.';
  if (shown.length === 0) return `${header}\nNo tasks match the filter.`;
  return [header, ...shown.map((task) => taskLine(task, snapshot.tasks))].join('\n');
}

const time = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

export function formatTask(task: BoardTask, tasks: readonly BoardTask[]): string {
  const lines = [
    `Task #${task.id}: ${task.subject}`,
    `Status: ${task.status}${task.owner ? ` (owner: ${task.owner})` : ''}`,
    `Description: ${task.description}`,
  ];
  if (task.activeForm) lines.push(`Active form: ${task.activeForm}`);
  if (task.blockedBy.length > 0) {
    const open = openBlockersOf(task, tasks);
    lines.push(
      `Blocked by: ${task.blockedBy.map((id) => `#${id}${open.includes(id) ? '' : ' (completed)'}`).join(', ')}`,
    );
  }
  if (task.blocks.length > 0) lines.push(`Blocks: ${task.blocks.map((id) => `#${id}`).join(', ')}`);
  if (task.note) lines.push(`Note: ${task.note}`);
  if (task.metadata) lines.push(`Metadata: ${JSON.stringify(task.metadata)}`);
  const times = [
    `created ${time(task.createdAtMs)} by ${task.createdBy}`,
    task.startedAtMs !== undefined ? `started ${time(task.startedAtMs)}` : undefined,
    task.completedAtMs !== undefined
      ? `completed ${time(task.completedAtMs)}${task.completedBy ? ` by ${task.completedBy}` : ''}`
      : undefined,
  ].filter(Boolean);
  lines.push(`Timeline: ${times.join('; ')}`);
  if (task.returnedCount > 0) lines.push(`Claims returned to the board: ${task.returnedCount}`);
  return lines.join('\n');
}

/** The answer to an accepted TaskUpdate. */
export function formatUpdate(result: BoardChangeResult): string {
  if (result.changed.length === 0) return `Task #${result.taskId}: nothing to change (it already was as requested).`;
  const lines = [`Updated task #${result.taskId} ${result.changed.join(', ')}`];
  const to = result.statusChange?.to;
  if (to === 'in_progress') {
    lines.push(
      'You own this task now. The runtime keeps your claim alive while you work; complete it with TaskUpdate status "completed" (a short result in note), or set it back to "pending" if you stop.',
    );
  }
  if (to === 'completed')
    lines.push('Task completed. Call TaskList to find your next task, or to see what your work unblocked.');
  return lines.join('\n');
}

export function formatCreated(result: BoardChangeResult): string {
  return `Task #${result.taskId} created successfully: ${result.task?.subject ?? ''}`;
}
