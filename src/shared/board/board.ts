import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { boardLimits } from './board-limits';

// Wire types of the task board workflow: updates change it, a query reads it, heartbeats renew (docs/board.md).

/** Where a task stands. `blocked` is set on purpose (with a note); waiting for open dependencies is `pending`. */
export const taskStatuses = ['pending', 'in_progress', 'blocked', 'completed'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** Who asks the board for a change: an agent (its claims are leases) or a person (CLI; no lease). */
export interface BoardActor {
  kind: 'agent' | 'person';
  /** The agentId, or the person's name. */
  id: string;
  /** The agent's name, if it has one (an owner may be given by name). */
  name?: string;
  /** The agent's tree root: told when the agent's claims are returned. */
  rootAgentId?: string;
}

/** An in-progress task's claim: who holds it and until when (agents' claims expire without heartbeats). */
export interface TaskClaim {
  /** The owning agent; undefined for a person's claim, which does not expire. */
  agentId?: string;
  rootAgentId?: string;
  sinceMs: number;
  heartbeatAtMs: number;
  /** Past this time without a heartbeat the task returns to pending. */
  expiresAtMs?: number;
}

/** One task of a board. */
export interface BoardTask {
  id: string;
  subject: string;
  description: string;
  /** Present-continuous label shown while in progress ("Running tests"). */
  activeForm?: string;
  status: TaskStatus;
  /** Who works on it (in progress), or who it is assigned to (pending). */
  owner?: string;
  claim?: TaskClaim;
  /** Open or done tasks this one waits for; it cannot be claimed while one of them is not completed. */
  blockedBy: string[];
  /** Tasks that wait for this one. */
  blocks: string[];
  /** Result note, or why it is blocked. */
  note?: string;
  metadata?: Record<string, unknown>;
  createdBy: string;
  createdAtMs: number;
  updatedAtMs: number;
  startedAtMs?: number;
  completedAtMs?: number;
  completedBy?: string;
  /** Times a claim on it was returned to the board (lease expired, owner ended, released). */
  returnedCount: number;
}

export type BoardEventKind =
  | 'created'
  | 'claimed'
  | 'completed'
  | 'returned'
  | 'blocked'
  | 'unblocked'
  | 'reopened'
  | 'assigned'
  | 'edited'
  | 'deleted';

/** Something that happened on the board (the last `boardLimits.keptEvents` are kept). */
export interface BoardEvent {
  seq: number;
  atMs: number;
  kind: BoardEventKind;
  taskId: string;
  by: string;
  text?: string;
}

/** What a board is, fixed when it starts. */
export interface BoardConfig {
  boardId: string;
  /** A named board (shared by trees). */
  name?: string;
  /** A tree's board: the root it belongs to. */
  rootAgentId?: string;
  leaseMs: number;
}

/** The board's whole state (carried across continue-as-new). */
export interface BoardState {
  config: BoardConfig;
  /** In id order. */
  tasks: BoardTask[];
  nextTaskId: number;
  events: BoardEvent[];
  nextSeq: number;
  /** Recent TaskCreate request ids and the task each created. */
  requests: { requestId: string; taskId: string }[];
}

/** The one input of `boardWorkflow`. */
export interface BoardWorkflowInput {
  config: BoardConfig;
  /** Continue-as-new past this many history events (default boardLimits.continueAsNewAfterEvents). */
  continueAsNewAfterEvents?: number;
  carried?: Omit<BoardState, 'config'>;
  continuedRuns?: number;
}

/** Tasks per column. `ready` and `waiting` split pending: claimable now, or waiting for open dependencies. */
export interface BoardCounts {
  pending: number;
  ready: number;
  waiting: number;
  in_progress: number;
  blocked: number;
  completed: number;
}

/** The `board` query's answer. */
export interface BoardSnapshot extends BoardState {
  counts: BoardCounts;
  /** Workflow time of the answer. */
  atMs: number;
  continuedRuns: number;
}

// Requests (every field is checked by the board's update validators: see board-requests.ts).

/** TaskCreate. */
export interface CreateTaskRequest {
  actor: BoardActor;
  /** Idempotency key: a repeated request returns the task it created. */
  requestId?: string;
  subject: string;
  description: string;
  activeForm?: string;
  metadata?: Record<string, unknown>;
  blockedBy?: string[];
}

/** TaskUpdate: any combination of fields; `status: 'deleted'` deletes the task. */
export interface UpdateTaskRequest {
  actor: BoardActor;
  taskId: string;
  subject?: string;
  description?: string;
  activeForm?: string;
  status?: TaskStatus | 'deleted';
  /** Assigns a pending task ('' clears it); claiming sets the caller itself. */
  owner?: string;
  addBlocks?: string[];
  addBlockedBy?: string[];
  removeBlockedBy?: string[];
  note?: string;
  /** Keys merged into the task's metadata; a null value deletes the key. */
  metadata?: Record<string, unknown>;
}

/** A person returns a task to pending, whoever holds it (CLI `board release`). */
export interface ReleaseTaskRequest {
  actor: BoardActor;
  taskId: string;
  reason?: string;
}

/** Every accepted change answers with this. */
export interface BoardChangeResult {
  taskId: string;
  /** The task after the change; undefined when it was deleted. */
  task?: BoardTask;
  changed: string[];
  statusChange?: { from: TaskStatus; to: TaskStatus | 'deleted' };
  /** The in-progress tasks the calling agent holds now (its runtime renews them). */
  held: string[];
  leaseMs: number;
}

/** An agent's runtime renewing its claims. */
export interface BoardHeartbeat {
  agentId: string;
}

/** An agent ended: what it still held returns to pending. */
export interface BoardOwnerEnded {
  agentId: string;
  reason: string;
}

/** Sent by a board to an agent whose claims it returned, and to that agent's root. */
export interface BoardNotice {
  boardId: string;
  /** The agent that lost the claims. */
  ownerAgentId?: string;
  taskIds: string[];
  /** What the agent's model is told. */
  text: string;
}

export const createTaskUpdate = defineUpdate<BoardChangeResult, [CreateTaskRequest]>('createTask');
export const updateTaskUpdate = defineUpdate<BoardChangeResult, [UpdateTaskRequest]>('updateTask');
export const releaseTaskUpdate = defineUpdate<BoardChangeResult, [ReleaseTaskRequest]>('releaseTask');
export const boardQuery = defineQuery<BoardSnapshot>('board');
export const boardHeartbeatSignal = defineSignal<[BoardHeartbeat]>('boardHeartbeat');
export const boardOwnerEndedSignal = defineSignal<[BoardOwnerEnded]>('boardOwnerEnded');
/** Handled by agents: claims of theirs (or, at the root, of their tree) were returned to a board. */
export const boardNoticeSignal = defineSignal<[BoardNotice]>('boardNotice');

/** Workflow type name of the board (registered in src/workflows/index.ts). */
export const boardWorkflowType = 'boardWorkflow';

/** The workflow ID of a tree's own board. */
export function treeBoardId(rootAgentId: string): string {
  return `board:tree:${rootAgentId}`;
}

/** The workflow ID of a named board. */
export function namedBoardId(name: string): string {
  return `board:name:${name}`;
}

/** The board an agent uses: its tree's named board if the root was given one, else the tree's own. */
export function agentBoardId(input: { taskBoard?: string; rootAgentId: string }): string {
  return input.taskBoard ? namedBoardId(input.taskBoard) : treeBoardId(input.rootAgentId);
}

/** Why a board name is not acceptable, or undefined when it is. */
export function boardNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > boardLimits.maxBoardNameChars || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    return `"${name.slice(0, 80)}" is not a board name: use 1-${boardLimits.maxBoardNameChars} letters, digits, '.', '_' or '-', starting with a letter or digit.`;
  }
  return undefined;
}

/** The renewal interval of a claim with this lease. */
export function heartbeatIntervalMs(leaseMs: number): number {
  return Math.max(250, Math.floor(leaseMs / boardLimits.heartbeatsPerLease));
}
