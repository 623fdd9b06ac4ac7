import type {
  BoardActor,
  BoardConfig,
  BoardCounts,
  BoardEventKind,
  BoardState,
  BoardTask,
} from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';

/** A copy-on-write change to a board, so a refused change or a validator's trial leaves it untouched. Pure. */
export class BoardDraft {
  private readonly tasks: BoardTask[];
  private readonly copied = new Set<string>();
  private readonly events: BoardState['events'];
  private nextTaskId: number;
  private nextSeq: number;
  private requests: BoardState['requests'];

  constructor(
    private readonly base: BoardState,
    readonly now: number,
  ) {
    this.tasks = [...base.tasks];
    this.events = [...base.events];
    this.nextTaskId = base.nextTaskId;
    this.nextSeq = base.nextSeq;
    this.requests = base.requests;
  }

  get config(): BoardConfig {
    return this.base.config;
  }

  get taskCount(): number {
    return this.tasks.length;
  }

  all(): readonly BoardTask[] {
    return this.tasks;
  }

  get(id: string): Readonly<BoardTask> | undefined {
    return this.tasks.find((task) => task.id === id);
  }

  /** The task, copied on first edit so the base state is never changed. */
  edit(id: string): BoardTask {
    const index = this.tasks.findIndex((task) => task.id === id);
    const task = this.tasks[index];
    if (!task) throw new Error(`BoardDraft.edit: no task ${id}`);
    if (this.copied.has(id)) return task;
    const copy: BoardTask = {
      ...task,
      blockedBy: [...task.blockedBy],
      blocks: [...task.blocks],
      ...(task.claim ? { claim: { ...task.claim } } : {}),
    };
    copy.updatedAtMs = this.now;
    this.tasks[index] = copy;
    this.copied.add(id);
    return copy;
  }

  /** A new task id (ids are never reused on a board). */
  takeId(): string {
    return String(this.nextTaskId++);
  }

  add(task: BoardTask): void {
    this.tasks.push(task);
    this.copied.add(task.id);
  }

  remove(id: string): void {
    const index = this.tasks.findIndex((task) => task.id === id);
    if (index >= 0) this.tasks.splice(index, 1);
  }

  event(kind: BoardEventKind, taskId: string, by: string, text?: string): void {
    this.events.push({ seq: this.nextSeq++, atMs: this.now, kind, taskId, by, ...(text ? { text } : {}) });
    if (this.events.length > boardLimits.keptEvents) this.events.splice(0, this.events.length - boardLimits.keptEvents);
  }

  rememberRequest(requestId: string, taskId: string): void {
    this.requests = [...this.requests, { requestId, taskId }].slice(-boardLimits.keptRequestIds);
  }

  taskOfRequest(requestId: string): string | undefined {
    return this.requests.find((entry) => entry.requestId === requestId)?.taskId;
  }

  finish(): BoardState {
    return {
      config: this.base.config,
      tasks: this.tasks,
      nextTaskId: this.nextTaskId,
      events: this.events,
      nextSeq: this.nextSeq,
      requests: this.requests,
    };
  }
}

/** A new, empty board. */
export function emptyBoard(config: BoardConfig): BoardState {
  return { config, tasks: [], nextTaskId: 1, events: [], nextSeq: 1, requests: [] };
}

/** How an actor is named on the board (owner, completedBy, events). */
export function actorLabel(actor: BoardActor): string {
  return actor.name ?? actor.id;
}

/** True when `owner` names this actor (by agentId or by name). */
export function namesActor(owner: string | undefined, actor: BoardActor): boolean {
  return (
    owner !== undefined && owner !== '' && (owner === actor.id || (actor.name !== undefined && owner === actor.name))
  );
}

/** True when this actor holds the task's claim. */
export function holdsClaim(task: Readonly<BoardTask>, actor: BoardActor): boolean {
  if (task.status !== 'in_progress') return false;
  if (actor.kind === 'agent') return task.claim?.agentId === actor.id;
  return task.claim?.agentId === undefined && namesActor(task.owner, actor);
}

/** The in-progress tasks an agent holds. */
export function heldBy(tasks: readonly BoardTask[], agentId: string): string[] {
  return tasks
    .filter((task) => task.status === 'in_progress' && task.claim?.agentId === agentId)
    .map((task) => task.id);
}

/** Ids of the task's dependencies that are not completed yet. */
export function openBlockers(tasks: readonly BoardTask[], task: Readonly<BoardTask>): string[] {
  return task.blockedBy.filter((id) => tasks.find((candidate) => candidate.id === id)?.status !== 'completed');
}

/** Tasks per column. */
export function countTasks(tasks: readonly BoardTask[]): BoardCounts {
  const counts: BoardCounts = { pending: 0, ready: 0, waiting: 0, in_progress: 0, blocked: 0, completed: 0 };
  for (const task of tasks) {
    counts[task.status] += 1;
    if (task.status === 'pending') {
      if (openBlockers(tasks, task).length > 0) counts.waiting += 1;
      else counts.ready += 1;
    }
  }
  return counts;
}
