import type { BoardActor, BoardConfig } from './board';

/** Input of each task-list tool activity (TaskCreate, TaskList, TaskGet, TaskUpdate). */
export interface BoardToolCallInput {
  /** The agent's board, and how to start it when TaskCreate finds none. */
  board: BoardConfig;
  actor: BoardActor;
  toolUseId: string;
  /** The model's tool input, validated by the activity. */
  input: Record<string, unknown>;
}

/** Result of each task-list tool activity. */
export interface BoardToolCallResult {
  content: string;
  isError: boolean;
  /** After a change: the tasks the calling agent holds now, which its runtime keeps renewing. */
  claims?: { held: string[]; leaseMs: number };
  /** TaskCreate's new task, TaskGet's task: what TaskCreated and TaskCompleted hooks are told (docs/hooks.md). */
  task?: BoardTaskBrief;
}

/** A task's id, subject and description. */
export interface BoardTaskBrief {
  id: string;
  subject: string;
  description: string;
}
