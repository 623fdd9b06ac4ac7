/** Ref names of checkpoints, and the agent ids and turns that may go into them. */
import { ErrorType } from '../shared/protocol/errors';
import { checkpointRefPrefix } from '../shared/workspace/checkpoints';
import { checkpointFailure } from './failures';

/** Longer ids are not agent ids (the runtime's are `<root>.<n>.<n>…`); the limit keeps file names legal everywhere. */
const maxAgentIdLength = 200;
/** Turns are padded to this many digits so refs sort by turn; larger turns still work (just longer). */
const turnDigits = 6;

/**
 * The agent id, checked to be one ref component and one file name as it is. Anything else is refused rather
 * than rewritten: two ids rewritten to the same name would share (and prune) each other's checkpoints.
 */
export function checkpointAgentName(agentId: unknown): string {
  const problem = agentIdProblem(agentId);
  if (problem) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `agent id ${JSON.stringify(agentId)} cannot name a checkpoint: ${problem}. ` +
        'Checkpoints need ids of letters, digits, ".", "_" and "-" (like "01JABC.2.1" or "demo-root").',
    );
  }
  return agentId as string;
}

function agentIdProblem(agentId: unknown): string | undefined {
  if (typeof agentId !== 'string' || agentId === '') return 'it is empty';
  if (agentId.length > maxAgentIdLength) return `it is longer than ${maxAgentIdLength} characters`;
  if (agentId.includes('..')) return 'it contains ".."';
  if (!/^[A-Za-z0-9._-]+$/.test(agentId)) return 'it contains a character other than letters, digits, ".", "_" or "-"';
  // git refuses a component starting with "." or ending with "." or ".lock"; a leading "-" reads as an option.
  if (/^[.-]/.test(agentId)) return 'it starts with "." or "-"';
  if (/(\.|\.lock)$/i.test(agentId)) return 'it ends with "." or ".lock"';
  return undefined;
}

/** The turn, checked to be a whole number of turns. */
export function checkpointTurn(turn: unknown): number {
  if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 0) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `turn ${JSON.stringify(turn)} is not a turn number (0, 1, 2…).`,
    );
  }
  return turn;
}

/** True for a full object id (SHA-1 or SHA-256): anything else could reach git as an option or a revision expression. */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value);
}

/** The prefix of every checkpoint ref of one agent (with the trailing slash). */
export function agentRefPrefix(agentId: string): string {
  return `${checkpointRefPrefix}${checkpointAgentName(agentId)}/`;
}

/** `refs/subagents/checkpoints/<agentId>/<turn, 6 digits>`. */
export function checkpointRef(agentId: string, turn: number): string {
  return `${agentRefPrefix(agentId)}${String(checkpointTurn(turn)).padStart(turnDigits, '0')}`;
}

/** The agent id and turn a checkpoint ref names, or undefined for anything else. */
export function parseCheckpointRef(ref: string): { agentId: string; turn: number } | undefined {
  if (!ref.startsWith(checkpointRefPrefix)) return undefined;
  const match = /^([^/]+)\/(\d+)$/.exec(ref.slice(checkpointRefPrefix.length));
  if (!match || agentIdProblem(match[1]) !== undefined) return undefined;
  return { agentId: match[1]!, turn: Number(match[2]) };
}
