import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  boardQuery,
  boardWorkflowType,
  createTaskUpdate,
  releaseTaskUpdate,
  updateTaskUpdate,
  type BoardChangeResult,
  type BoardConfig,
  type BoardSnapshot,
  type BoardWorkflowInput,
  type CreateTaskRequest,
  type ReleaseTaskRequest,
  type UpdateTaskRequest,
} from '../shared/board/board';
import { ErrorType, errorText } from '../shared/protocol/errors';

/** The board refused a request (its message says why and what to do). */
export class BoardRefusedError extends Error {
  override readonly name = 'BoardRefusedError';
}

/** No board with that id is running or was ever started. */
export class BoardNotFoundError extends Error {
  override readonly name = 'BoardNotFoundError';
}

/** Talks to task boards from Node by update and query; a refusal becomes a BoardRefusedError (docs/board.md). */
export class BoardClient {
  constructor(
    readonly temporal: Client,
    readonly taskQueue: string,
  ) {}

  private handle(boardId: string): WorkflowHandle {
    return this.temporal.workflow.getHandle(boardId);
  }

  /** Creates a task, starting the board first when it does not exist (update-with-start). */
  async create(
    config: BoardConfig,
    request: CreateTaskRequest,
    options: { updateId?: string; taskQueue?: string } = {},
  ): Promise<BoardChangeResult> {
    const input: BoardWorkflowInput = { config };
    const startWorkflowOperation = new WithStartWorkflowOperation(boardWorkflowType, {
      workflowId: config.boardId,
      taskQueue: options.taskQueue ?? this.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `task board ${config.name ?? `of ${config.rootAgentId ?? config.boardId}`}`.slice(0, 200),
    });
    return this.translate(config.boardId, () =>
      this.temporal.workflow.executeUpdateWithStart(createTaskUpdate, {
        args: [request],
        startWorkflowOperation,
        ...(options.updateId ? { updateId: options.updateId } : {}),
      }),
    );
  }

  async update(boardId: string, request: UpdateTaskRequest, updateId?: string): Promise<BoardChangeResult> {
    return this.translate(boardId, () =>
      this.handle(boardId).executeUpdate(updateTaskUpdate, { args: [request], ...(updateId ? { updateId } : {}) }),
    );
  }

  async release(boardId: string, request: ReleaseTaskRequest): Promise<BoardChangeResult> {
    return this.translate(boardId, () => this.handle(boardId).executeUpdate(releaseTaskUpdate, { args: [request] }));
  }

  async snapshot(boardId: string): Promise<BoardSnapshot> {
    return this.translate(boardId, () => this.handle(boardId).query(boardQuery));
  }

  /** The board's task queue when it exists (running or not), else undefined. */
  async taskQueueOf(boardId: string): Promise<string | undefined> {
    try {
      return (await this.handle(boardId).describe()).taskQueue;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  private async translate<T>(boardId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError)
        throw new BoardRefusedError((error.cause as Error | undefined)?.message ?? error.message);
      if (error instanceof WorkflowNotFoundError) {
        throw new BoardNotFoundError(
          errorText(ErrorType.BoardNotFound, `no task board "${boardId}" is running (${error.message}).`),
        );
      }
      throw error;
    }
  }
}
