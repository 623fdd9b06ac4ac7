import { ActivityFailure, ApplicationFailure, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { RewindAck, RewindInput } from '../../shared/rewind/rewind-protocol';
import { checkpointAsOf, endsWithAnswer, findBoundary, type TurnBoundary } from '../../shared/rewind/turns';
import type { FileChange, TurnCheckpoint } from '../../shared/workspace/checkpoints';
import { textOf } from '../../shared/tools/tool-results';
import type { AgentParts } from '../loop/agent-parts';
import { setupActivities, setupOptions } from '../runtime/activity-proxies';
import { changesSinceOn, restoreCheckpointOn } from '../tools/workspace-activities';
import { checkpointNow } from './checkpoint-turn';
import { continueWithPrompt, returnConversationTo } from './conversation-rewind';
import type { PendingRewind } from './rewind-request';
import { changedUnderneathText } from '../../shared/rewind/refusals';

/** How the conversation goes on after a rewind: the model is called, or the boundary was its answer. */
export type AfterRewind = { type: 'continue' } | { type: 'answer'; text: string };

// Rewinds of a running agent (docs/rewind.md): in place, in this run; the update answers once it is done.

/** The update's validator: refuses what cannot be done, before anything changes. */
export function validateRewind(
  agent: Pick<AgentParts, 'input' | 'state' | 'progress' | 'rewinding'>,
  request: RewindInput,
): void {
  const { input, state, progress } = agent;
  const result = progress.current.result;
  if (result)
    throw new Error(
      `Agent ${input.agentId} already finished (${result.status}); rewinding it starts a new run: subagents rewind ${input.agentId} --turn ${request.turn} (client.rewind).`,
    );
  if (agent.rewinding.requested)
    throw new Error(`Agent ${input.agentId} is already rewinding; wait for that to finish.`);
  const found = findBoundary(state.turns.boundaries, request.turn, input.agentId);
  if (typeof found === 'string') throw new Error(found);
  if (request.files && !checkpointAsOf(state.turns.boundaries, request.turn))
    throw new Error(
      `Agent ${input.agentId} has no checkpoint of its files at or before turn ${request.turn}` +
        (state.turns.checkpointsUnavailable ? ` (${state.turns.checkpointsUnavailable})` : '') +
        '; rewind without --files to go back in the conversation only.',
    );
}

/** A refusal as an ApplicationFailure: any other error thrown by an update handler would fail the workflow task. */
function rewindRefused(detail: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: ErrorType.RewindRefused,
    message: errorText(ErrorType.RewindRefused, detail),
    nonRetryable: true,
  });
}

/** What went wrong, in the words of the activity's own failure when there is one. */
function reasonOf(error: unknown): string {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

/** The update's body: refuses when the files changed underneath, then waits for the loop to rewind. */
export async function requestRewind(agent: AgentParts, request: RewindInput): Promise<RewindAck> {
  try {
    return await carryOutRequest(agent, request);
  } catch (error) {
    if (error instanceof ApplicationFailure || isCancellation(error)) throw error;
    throw rewindRefused(reasonOf(error));
  }
}

async function carryOutRequest(agent: AgentParts, request: RewindInput): Promise<RewindAck> {
  const { input, state, control } = agent;
  const boundary = findBoundary(state.turns.boundaries, request.turn, input.agentId) as TurnBoundary;
  const checkpoint = request.files ? checkpointAsOf(state.turns.boundaries, request.turn) : undefined;
  const latest = state.turns.latestCheckpoint;
  // Between turns the workspace should be as the agent left it; inside a turn its own tools are still writing.
  if (checkpoint && latest && !control.inTurn) {
    const changed = await changesSinceOn(input.workspaceWorker, {
      checkpoint: latest,
      root: rootFor(agent, latest),
    });
    if (changed.length > 0) throw rewindRefused(changedUnderneathText(input.agentId, changed));
  }
  const by = request.by ?? 'user';
  const pending: PendingRewind = { request: { ...request, by }, boundary, ...(checkpoint ? { checkpoint } : {}) };
  agent.rewinding.ask(pending);
  control.interrupt({ by, reason: `rewinding to turn ${request.turn}` });
  await condition(() => pending.ack !== undefined || pending.error !== undefined);
  if (pending.error !== undefined) throw rewindRefused(pending.error);
  return pending.ack!;
}

/** A Rewind tool call (rewind-tool.ts): carried out at the end of this turn; nobody waits for the answer. */
export function requestRewindFromTool(
  agent: Pick<AgentParts, 'rewinding'>,
  request: RewindInput & { by: string },
): void {
  agent.rewinding.ask({ request, boundary: { turn: request.turn } as TurnBoundary, fromTool: true });
}

/** Carries out the pending rewind at a boundary: children, board, files, conversation. */
export async function performRewind(agent: AgentParts): Promise<AfterRewind> {
  const pending = agent.rewinding.current!;
  try {
    return await rewind(agent, pending);
  } catch (error) {
    pending.error = reasonOf(error);
    // The agent's own Rewind call has nobody waiting: it learns of the refusal at its next turn.
    if (pending.fromTool)
      agent.inbox.pushNotification(`Your Rewind to turn ${pending.request.turn} did not happen: ${pending.error}`);
    return { type: 'continue' };
  }
}

async function rewind(agent: AgentParts, pending: PendingRewind): Promise<AfterRewind> {
  const { input, state, children, board, progress } = agent;
  if (pending.fromTool) {
    pending.boundary = findBoundary(state.turns.boundaries, pending.request.turn, input.agentId) as TurnBoundary;
    const checkpoint = pending.request.files ? checkpointAsOf(state.turns.boundaries, pending.request.turn) : undefined;
    if (checkpoint) pending.checkpoint = checkpoint;
  }
  const { request, boundary } = pending;
  const reason = `${input.agentId} was rewound to turn ${request.turn} by ${request.by}`;
  // Children first: what they wrote until they stopped is recorded as the agent's own before the restore.
  const stoppedChildren = await children.stopStartedAfter(request.turn, request.by, reason);
  let restoredFiles: FileChange[] = [];
  if (pending.checkpoint) {
    const own = await checkpointNow(agent, state.turns.next);
    const latest = own ?? state.turns.latestCheckpoint;
    const restored = await restoreCheckpointOn(input.workspaceWorker, {
      checkpoint: pending.checkpoint,
      targetRoot: rootFor(agent, pending.checkpoint),
      ...(latest ? { latest } : {}),
    });
    if (restored.kind === 'refused') throw new Error(changedUnderneathText(input.agentId, restored.changedSince));
    restoredFiles = restored.changes;
  }
  const releasedTasks = await board.releaseForRewind(reason);
  const droppedTurns = state.turns.last - request.turn;
  await restoreConversation(agent, boundary, request.by);
  state.turns.truncateAfter(request.turn);
  state.rewoundTo(boundary.loopTurn);
  progress.rewound(request.turn, request.by);
  if (request.prompt !== undefined) continueWithPrompt(state.conversation, request.prompt);
  pending.ack = {
    agentId: input.agentId,
    turn: request.turn,
    droppedTurns,
    stoppedChildren,
    releasedTasks,
    restoredFiles,
  };
  if (request.prompt === undefined && endsWithAnswer(state.messages)) {
    const last = state.messages[state.messages.length - 1]!;
    return { type: 'answer', text: typeof last.content === 'string' ? last.content : textOf(last.content) };
  }
  return { type: 'continue' };
}

/** The conversation returns to the boundary's: from this run's log, or fetched from the run that holds it. */
function restoreConversation({ input, state }: AgentParts, boundary: TurnBoundary, by: string): Promise<void> {
  return returnConversationTo(state.conversation, boundary, workflowInfo().runId, by, () =>
    setupActivities.fetchTurnConversation.executeWithOptions(
      { ...setupOptions, summary: `conversation of turn ${boundary.turn}` },
      [{ agentId: input.agentId, runId: boundary.runId, turn: boundary.turn, hash: boundary.hash }],
    ),
  );
}

/** Where a checkpoint's files are: the agent's own worktree when it has one, else the checkpoint's root. */
function rootFor({ state }: Pick<AgentParts, 'state'>, checkpoint: TurnCheckpoint): string {
  return state.worktree?.path ?? checkpoint.root;
}
