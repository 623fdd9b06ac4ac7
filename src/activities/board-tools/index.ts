import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { BoardClient, BoardNotFoundError, BoardRefusedError } from '../../client/board-client';
import type { BoardChangeResult, BoardSnapshot } from '../../shared/board/board';
import {
  describeProblems,
  normalizeTaskId,
  parseCreateTask,
  parseTaskListFilter,
  parseUpdateTask,
  type Parsed,
} from '../../shared/board/board-requests';
import type { BoardTaskBrief, BoardToolCallInput, BoardToolCallResult } from '../../shared/board/board-tool-call';
import { boardToolDefinitions } from '../../shared/board/board-tool-definitions';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { TaskBoardToolName } from '../../shared/policy/tool-classification';
import { formatCreated, formatTask, formatTaskList, formatUpdate } from './format';

const refused = (content: string): BoardToolCallResult => ({ content, isError: true });

/** The model may send only the fields of the tool's schema (never `actor` or `requestId`). */
function unknownFields(name: TaskBoardToolName, input: Record<string, unknown>): string | undefined {
  const allowed = Object.keys(
    (boardToolDefinitions[name].input_schema as { properties: Record<string, unknown> }).properties,
  );
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return undefined;
  return errorText(
    ErrorType.InvalidToolInput,
    `${name} has no field ${unknown.map((key) => `"${key}"`).join(', ')}; its fields are ${allowed.join(', ')}.`,
  );
}

function invalid<T>(name: TaskBoardToolName, parsed: Parsed<T>): BoardToolCallResult | undefined {
  return parsed.ok
    ? undefined
    : refused(errorText(ErrorType.InvalidToolInput, `${name}: ${describeProblems(parsed.problems)}`));
}

const withClaims = (content: string, result: BoardChangeResult): BoardToolCallResult => ({
  content,
  isError: false,
  claims: { held: result.held, leaseMs: result.leaseMs },
});

const brief = (task: BoardTaskBrief): BoardTaskBrief => ({
  id: task.id,
  subject: task.subject,
  description: task.description,
});

/** The agent's board, or undefined when it has not been started yet (nobody created a task). */
async function snapshotOrNone(boards: BoardClient, boardId: string): Promise<BoardSnapshot | undefined> {
  try {
    return await boards.snapshot(boardId);
  } catch (error) {
    if (error instanceof BoardNotFoundError) return undefined;
    throw error;
  }
}

/** One task-list tool call: validate the model's input, ask the board, say what happened. */
async function runBoardTool(
  name: TaskBoardToolName,
  call: BoardToolCallInput,
  temporal: Client,
): Promise<BoardToolCallResult> {
  const unknown = unknownFields(name, call.input);
  if (unknown) return refused(unknown);
  const boards = new BoardClient(temporal, Context.current().info.taskQueue);
  const { board, actor } = call;
  // A retried activity repeats the same update id, which Temporal answers once.
  const updateId = `${actor.id}/${call.toolUseId}`;
  try {
    switch (name) {
      case 'TaskCreate': {
        const parsed = parseCreateTask({ ...call.input, actor, requestId: updateId });
        if (!parsed.ok) return invalid(name, parsed)!;
        const result = await boards.create(board, parsed.value, { updateId });
        const created = withClaims(formatCreated(result), result);
        return result.task ? { ...created, task: brief(result.task) } : created;
      }
      case 'TaskUpdate': {
        const parsed = parseUpdateTask({ ...call.input, actor });
        if (!parsed.ok) return invalid(name, parsed)!;
        const result = await boards.update(board.boardId, parsed.value, updateId);
        return withClaims(formatUpdate(result), result);
      }
      case 'TaskList': {
        const parsed = parseTaskListFilter(call.input);
        if (!parsed.ok) return invalid(name, parsed)!;
        const snapshot = await snapshotOrNone(boards, board.boardId);
        return {
          content: snapshot ? formatTaskList(snapshot, parsed.value) : 'No tasks found. TaskCreate adds one.',
          isError: false,
        };
      }
      case 'TaskGet': {
        const taskId = normalizeTaskId(call.input.taskId);
        if (taskId === undefined)
          return refused(errorText(ErrorType.InvalidToolInput, 'TaskGet: "taskId" must be a task id such as "3".'));
        const snapshot = await snapshotOrNone(boards, board.boardId);
        const task = snapshot?.tasks.find((candidate) => candidate.id === taskId);
        if (!snapshot || !task)
          return refused(
            errorText(
              ErrorType.TaskNotFound,
              `task #${taskId} does not exist on this board. TaskList shows its tasks.`,
            ),
          );
        return { content: formatTask(task, snapshot.tasks), isError: false, task: brief(task) };
      }
    }
  } catch (error) {
    if (error instanceof BoardRefusedError) return refused(error.message);
    if (error instanceof BoardNotFoundError) {
      return refused(
        errorText(
          ErrorType.TaskNotFound,
          'this board has no tasks yet (TaskCreate starts it), so there is nothing to update.',
        ),
      );
    }
    throw error;
  }
}

/** The task-list tools as activities (one activity type per tool, so the UI names them). */
export function createBoardToolActivities(temporal: Client) {
  return {
    TaskCreate: (call: BoardToolCallInput) => runBoardTool('TaskCreate', call, temporal),
    TaskList: (call: BoardToolCallInput) => runBoardTool('TaskList', call, temporal),
    TaskGet: (call: BoardToolCallInput) => runBoardTool('TaskGet', call, temporal),
    TaskUpdate: (call: BoardToolCallInput) => runBoardTool('TaskUpdate', call, temporal),
  };
}
