import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { isReadOnlyTool, taskBoardToolNames } from '../../shared/policy/tool-classification';
import type { TurnCheckpoint } from '../../shared/workspace/checkpoints';
import type { AgentParts } from '../loop/agent-parts';
import { checkpointOn } from '../tools/workspace-activities';

/** Tools that change nothing on disk, besides the read-only ones. */
const notWriting: readonly string[] = ['SendMessage', 'TaskStop', 'StructuredOutput', ...taskBoardToolNames];

/** True when a tool may change files: Bash, the edit tools, MCP and custom tools, subagents in the same workspace. */
export function mayWriteFiles(tool: string): boolean {
  return !isReadOnlyTool(tool) && !notWriting.includes(tool);
}

/** Whether the agent has any tool that may change files: only then are checkpoints taken (docs/rewind.md). */
export function writesFiles({ input, state }: Pick<AgentParts, 'input' | 'state'>): boolean {
  const extra = state.extraTools?.descriptors.map((descriptor) => descriptor.definition.name) ?? [];
  return [...input.tools, ...extra].some(mayWriteFiles) || input.customTools !== undefined;
}

/** Records the boundary a turn ended at, with a checkpoint when its tools may have changed files. */
export async function recordTurnBoundary(agent: Pick<AgentParts, 'input' | 'state'>): Promise<void> {
  const { state } = agent;
  const ran = state.turns.takeTools();
  const checkpoint =
    writesFiles(agent) && ran.some(mayWriteFiles) ? await checkpointNow(agent, state.turns.next) : undefined;
  state.turns.record(state.conversation, state.turn, checkpoint);
}

/**
 * Before the first tool of an agent's life that may change files: the workspace as the previous boundary left it.
 * Taken then rather than at the start, so agents that never write take no checkpoint at all.
 */
export async function checkpointBeforeFirstWrite(
  agent: Pick<AgentParts, 'input' | 'state'>,
  tools: readonly string[],
): Promise<void> {
  const { state } = agent;
  if (state.turns.latestCheckpoint || state.turns.last < 0 || !tools.some(mayWriteFiles) || !writesFiles(agent)) return;
  const baseline = await checkpointNow(agent, state.turns.last);
  if (baseline) state.turns.attachBaseline(baseline);
}

/** Records the boundary of a turn cut by a stop, without touching the workspace (the agent is going away). */
export function recordStoppedBoundary({ state }: Pick<AgentParts, 'state'>): void {
  const last = state.turns.boundaries[state.turns.boundaries.length - 1];
  if (last && last.hash === state.conversationHash) return;
  state.turns.takeTools();
  state.turns.record(state.conversation, state.turn);
}

/** A checkpoint of the workspace now, if it changed since the agent's latest; failures only note why (never fail the agent). */
export async function checkpointNow(
  { input, state }: Pick<AgentParts, 'input' | 'state'>,
  turn: number,
): Promise<TurnCheckpoint | undefined> {
  if (state.turns.checkpointsUnavailable !== undefined) return undefined;
  const previous = state.turns.latestCheckpoint;
  try {
    const result = await checkpointOn(input.workspaceWorker, {
      agentId: input.agentId,
      cwd: state.cwd,
      turn,
      ...(previous ? { previous } : {}),
    });
    if (result.kind === 'recorded') return result.checkpoint;
    if (result.kind === 'unavailable') state.turns.noteUnavailable(result.reason);
    return undefined;
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ActivityFailure ? error.cause : error;
    state.turns.noteUnavailable(
      `the last checkpoint failed: ${cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause)}`,
    );
    return undefined;
  }
}
