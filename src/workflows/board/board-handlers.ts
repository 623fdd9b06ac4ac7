import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import {
  boardHeartbeatSignal,
  boardOwnerEndedSignal,
  boardQuery,
  createTaskUpdate,
  releaseTaskUpdate,
  updateTaskUpdate,
} from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';
import {
  describeProblems,
  parseCreateTask,
  parseReleaseTask,
  parseUpdateTask,
  type Parsed,
} from '../../shared/board/board-requests';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { BoardChange, BoardRun } from './board-run';
import { createTask, releaseTask, updateTask } from './board-tasks';

/** The request parsed, or the refusal naming every bad field. */
function parsedOrThrow<T>(parsed: Parsed<T>, fail: (message: string) => Error): T {
  if (parsed.ok) return parsed.value;
  throw fail(errorText(ErrorType.InvalidBoardRequest, describeProblems(parsed.problems)));
}

const refuse = (message: string): Error => new Error(message);
const failUpdate = (message: string): Error =>
  ApplicationFailure.create({ type: ErrorType.InvalidBoardRequest, message, nonRetryable: true });

/** Every handler of a board (docs/board.md): validators refuse bad updates before history; nothing throws. */
export function installBoardHandlers(board: BoardRun): void {
  const update = <T>(parse: (raw: unknown) => Parsed<T>, change: (request: T) => BoardChange) => ({
    validator: (raw: T) => board.check(change(parsedOrThrow(parse(raw), refuse))),
    handler: (raw: T) => board.apply(change(parsedOrThrow(parse(raw), failUpdate))),
  });
  const create = update(parseCreateTask, (request) => (state, now) => createTask(state, request, now));
  setHandler(createTaskUpdate, create.handler, { validator: create.validator });
  const change = update(parseUpdateTask, (request) => (state, now) => updateTask(state, request, now));
  setHandler(updateTaskUpdate, change.handler, { validator: change.validator });
  const release = update(parseReleaseTask, (request) => (state, now) => releaseTask(state, request, now));
  setHandler(releaseTaskUpdate, release.handler, { validator: release.validator });

  setHandler(boardQuery, () => board.snapshot());

  const agentIdOf = (raw: unknown): string | undefined => {
    const agentId = typeof raw === 'object' && raw !== null ? (raw as { agentId?: unknown }).agentId : undefined;
    return typeof agentId === 'string' && agentId !== '' && agentId.length <= boardLimits.maxOwnerChars
      ? agentId
      : undefined;
  };
  setHandler(boardHeartbeatSignal, (raw) => {
    const agentId = agentIdOf(raw);
    if (agentId) board.heartbeat(agentId);
  });
  setHandler(boardOwnerEndedSignal, (raw) => {
    const agentId = agentIdOf(raw);
    const reason = typeof raw?.reason === 'string' ? raw.reason.slice(0, 200) : 'ended';
    if (agentId) board.ownerEnded(agentId, reason);
  });
}
