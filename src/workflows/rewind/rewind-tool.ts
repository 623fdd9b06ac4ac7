import type { ToolUseBlock } from '../../shared/model/messages';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { AgentParts } from '../loop/agent-parts';
import { requestRewindFromTool, validateRewind } from './rewinding';

/** The user message a Rewind call leaves at the boundary it goes back to. */
export function rewindNote(turn: number, files: boolean, note: string): string {
  return `[You went back to turn ${turn} with the Rewind tool${files ? '; the files are as they were then' : ''}. Your note:]\n${note}`;
}

/** The Rewind tool (docs/rewind.md): the agent goes back in its own conversation once this turn's tools have run. */
export function rewindTool(call: ToolUseBlock, agent: AgentParts): ToolOutcome {
  const input = call.input as { turn?: unknown; note?: unknown; files?: unknown };
  const refuse = (why: string): ToolOutcome => ({
    isError: true,
    content: errorText(ErrorType.InvalidToolInput, `Rewind: ${why} Nothing was changed.`),
  });
  if (typeof input.turn !== 'number' || !Number.isInteger(input.turn) || input.turn < 0)
    return refuse('turn must be a whole number from 0.');
  if (typeof input.note !== 'string' || input.note.trim() === '') return refuse('note must be a non-empty text.');
  if (input.note.length > 20_000) return refuse('note must be at most 20,000 characters.');
  if (input.files !== undefined && typeof input.files !== 'boolean') return refuse('files must be true or false.');
  const files = input.files === true;
  const request = {
    turn: input.turn,
    files,
    prompt: rewindNote(input.turn, files, input.note),
    by: agent.input.agentId,
  };
  try {
    validateRewind(agent, request);
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  if (input.turn >= agent.state.turns.next)
    return refuse(`turn ${input.turn} is this turn or later; go back to an earlier one.`);
  requestRewindFromTool(agent, request);
  return {
    isError: false,
    content: `Rewinding to turn ${input.turn} once this turn's tools have run${files ? ', files included' : ''}.`,
  };
}
