import { parseArgs } from 'node:util';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { BoardClient, BoardNotFoundError, BoardRefusedError } from '../../client/board-client';
import {
  boardNameProblem,
  namedBoardId,
  treeBoardId,
  type BoardActor,
  type BoardChangeResult,
  type BoardConfig,
} from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';
import {
  describeProblems,
  normalizeTaskId,
  parseCreateTask,
  parseUpdateTask,
  updateStatuses,
} from '../../shared/board/board-requests';
import { defaultTaskQueue } from '../../shared/protocol/config';
import { ErrorType } from '../../shared/protocol/errors';
import { renderBoard } from '../board-view';
import { boardUsage } from '../command-usage';
import { CliError, ExitCode } from '../exit-codes';
import { connectTemporal } from '../temporal-session';

/** A board the CLI found (or, for `add`, will start). */
interface BoardTarget {
  boardId: string;
  taskQueue: string;
  /** Set when the board does not exist yet: how `add` starts it. */
  start?: BoardConfig;
}

const usage = boardUsage;

/** Finds the board of a tree (by its root agentId) or a named board; `add` may start a new one. */
async function resolveBoard(
  temporal: Client,
  boards: BoardClient,
  reference: string | undefined,
  forAdd: boolean,
): Promise<BoardTarget> {
  if (!reference) throw new CliError(`Give a tree's root agentId or a board name: subagents ${usage}`);
  const candidates = reference.startsWith('board:')
    ? [reference]
    : [treeBoardId(reference), ...(boardNameProblem(reference) ? [] : [namedBoardId(reference)])];
  for (const boardId of candidates) {
    const taskQueue = await boards.taskQueueOf(boardId);
    if (taskQueue) return { boardId, taskQueue };
  }
  if (forAdd) {
    const root = await temporal.workflow
      .getHandle(reference)
      .describe()
      .catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      });
    const leaseMs = boardLimits.defaultLeaseMs;
    if (root)
      return {
        boardId: treeBoardId(reference),
        taskQueue: root.taskQueue,
        start: { boardId: treeBoardId(reference), rootAgentId: reference, leaseMs },
      };
    const problem = boardNameProblem(reference);
    if (problem) throw new CliError(`No agent "${reference}", and ${problem}`);
    return {
      boardId: namedBoardId(reference),
      taskQueue: boards.taskQueue,
      start: { boardId: namedBoardId(reference), name: reference, leaseMs },
    };
  }
  throw new CliError(
    `No task board for "${reference}": neither ${candidates.join(' nor ')} exists. A board starts with its first task (TaskCreate, or subagents board add).`,
    ExitCode.notFound,
  );
}

/** Runs a board command with a connection; board errors become exit codes. */
async function withBoards(run: (temporal: Client, boards: BoardClient) => Promise<number>): Promise<number> {
  // A plain Temporal client (no SubagentsClient): boards need no agent definitions, so the command starts faster.
  const { temporal, close } = await connectTemporal();
  try {
    return await run(temporal, new BoardClient(temporal, process.env.SUBAGENTS_TASK_QUEUE ?? defaultTaskQueue));
  } catch (error) {
    if (error instanceof BoardNotFoundError) throw new CliError(error.message, ExitCode.notFound);
    if (error instanceof BoardRefusedError) {
      const code = error.message.startsWith(ErrorType.TaskNotFound)
        ? ExitCode.notFound
        : error.message.startsWith(ErrorType.InvalidBoardRequest)
          ? ExitCode.usage
          : ExitCode.agentUnsuccessful;
      throw new CliError(error.message, code);
    }
    throw error;
  } finally {
    await close();
  }
}

const person = (by: string | undefined): BoardActor => ({ kind: 'person', id: by ?? process.env.USER ?? 'user' });

function printChange(result: BoardChangeResult, json: boolean, text: string): number {
  console.log(json ? JSON.stringify(result) : text);
  return ExitCode.ok;
}

async function show(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, watch: { type: 'boolean', default: false } },
  });
  if (positionals.length > 1) throw new CliError(`board takes one board: subagents ${usage}`);
  return withBoards(async (temporal, boards) => {
    const { boardId } = await resolveBoard(temporal, boards, positionals[0], false);
    const draw = async (): Promise<string> => {
      const snapshot = await boards.snapshot(boardId);
      return values.json ? JSON.stringify(snapshot) : renderBoard(snapshot, { width: process.stdout.columns });
    };
    if (!values.watch) {
      console.log(await draw());
      return ExitCode.ok;
    }
    // --watch: redraw every second until Ctrl-C (JSON: one line whenever the board changed).
    let stopped = false;
    const stop = () => void (stopped = true);
    process.once('SIGINT', stop);
    try {
      let previous = '';
      while (!stopped) {
        const frame = await draw();
        if (frame !== previous) process.stdout.write(values.json ? `${frame}\n` : `\x1b[2J\x1b[H${frame}\n`);
        previous = frame;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    } finally {
      process.off('SIGINT', stop);
    }
    return ExitCode.ok;
  });
}

async function add(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      description: { type: 'string', default: '' },
      'blocked-by': { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [reference, ...words] = positionals;
  const blockedBy = values['blocked-by']
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const parsed = parseCreateTask({
    actor: person(values.by),
    subject: words.join(' '),
    description: values.description,
    ...(blockedBy ? { blockedBy } : {}),
  });
  if (!parsed.ok) throw new CliError(`board add: ${describeProblems(parsed.problems)} Usage: subagents ${usage}`);
  return withBoards(async (temporal, boards) => {
    const target = await resolveBoard(temporal, boards, reference, true);
    const result = await boards.create(
      target.start ?? { boardId: target.boardId, leaseMs: boardLimits.defaultLeaseMs },
      parsed.value,
      { taskQueue: target.taskQueue },
    );
    return printChange(result, values.json, `created task #${result.taskId} on ${target.boardId}`);
  });
}

async function move(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      owner: { type: 'string' },
      note: { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [reference, taskId, status] = positionals;
  if (!status || !updateStatuses.includes(status as (typeof updateStatuses)[number])) {
    throw new CliError(
      `board move needs a board, a task id and one of ${updateStatuses.join(', ')}: subagents ${usage}`,
    );
  }
  const parsed = parseUpdateTask({
    actor: person(values.by),
    taskId,
    status,
    ...(values.owner !== undefined ? { owner: values.owner } : {}),
    ...(values.note !== undefined ? { note: values.note } : {}),
  });
  if (!parsed.ok) throw new CliError(`board move: ${describeProblems(parsed.problems)}`);
  return withBoards(async (temporal, boards) => {
    const { boardId } = await resolveBoard(temporal, boards, reference, false);
    const result = await boards.update(boardId, parsed.value);
    return printChange(
      result,
      values.json,
      `task #${result.taskId} is ${result.task?.status ?? 'deleted'}${result.task?.owner ? ` (${result.task.owner})` : ''}`,
    );
  });
}

async function release(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: 'string' }, by: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const [reference, rawTaskId] = positionals;
  const taskId = normalizeTaskId(rawTaskId);
  if (!taskId) throw new CliError(`board release needs a board and a task id: subagents ${usage}`);
  return withBoards(async (temporal, boards) => {
    const { boardId } = await resolveBoard(temporal, boards, reference, false);
    const result = await boards.release(boardId, {
      actor: person(values.by),
      taskId,
      ...(values.reason ? { reason: values.reason } : {}),
    });
    return printChange(
      result,
      values.json,
      `task #${taskId} is pending again; its owner and the owner's tree root are told`,
    );
  });
}

/** `subagents board ...` (docs/cli.md, Task board). */
export async function boardCommand(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  switch (first) {
    case 'add':
      return add(rest);
    case 'move':
      return move(rest);
    case 'release':
      return release(rest);
    case 'show':
      return show(rest);
    default:
      return show(argv);
  }
}
