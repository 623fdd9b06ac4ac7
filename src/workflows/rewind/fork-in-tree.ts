import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { ResumeState } from '../../shared/protocol/definitions';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ForkAck, ForkSubagentInput } from '../../shared/rewind/rewind-protocol';
import { branchInput, branchRefusal } from '../../shared/rewind/branch-input';
import { findBoundary } from '../../shared/rewind/turns';
import type { AgentParts } from '../loop/agent-parts';
import { setupActivities, setupOptions } from '../runtime/activity-proxies';
import { workflowNowMs } from '../runtime/clock';
import { resolveAgentCwdOn } from '../tools/workspace-activities';

const refused = (detail: string) =>
  ApplicationFailure.create({
    type: ErrorType.ResumeRefused,
    message: errorText(ErrorType.ResumeRefused, detail),
    nonRetryable: true,
  });

type ForkingAgent = Pick<AgentParts, 'input' | 'state' | 'children' | 'tree'>;

/** `subagents fork` of one of this agent's children, placed beside it: this agent starts the fork as its child (docs/rewind.md). */
export async function forkSubagent(agent: ForkingAgent, request: ForkSubagentInput): Promise<ForkAck> {
  try {
    return await forkBeside(agent, request);
  } catch (error) {
    if (error instanceof ApplicationFailure || isCancellation(error)) throw error;
    throw refused(
      `${request.sourceAgentId} could not be forked: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function forkBeside(agent: ForkingAgent, request: ForkSubagentInput): Promise<ForkAck> {
  const { input, state, children, tree } = agent;
  let previous: ResumeState;
  try {
    previous = await setupActivities.fetchResumeState.executeWithOptions(
      { ...setupOptions, summary: `fork ${request.sourceAgentId}`.slice(0, 120) },
      [{ agentId: request.sourceAgentId }],
    );
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure)
      throw refused(`${request.sourceAgentId} cannot be forked: ${error.cause.message}`);
    throw error;
  }
  const boundary = findBoundary(previous.carried.turns ?? [], request.turn, request.sourceAgentId);
  if (typeof boundary === 'string') throw refused(boundary);
  if (children.runningCount >= input.limits.maxChildrenPerAgent)
    throw refused(
      `${input.agentId} already has ${children.runningCount} running subagents (limit ${input.limits.maxChildrenPerAgent}); fork as a new root (--root) or try again when one has finished.`,
    );
  let cwd: string | undefined;
  if (request.cwd !== undefined) {
    const resolved = await resolveAgentCwdOn(input.workspaceWorker, {
      requested: request.cwd,
      parentCwd: state.cwd,
      workspaceRoot: state.workspaceRoot,
    });
    if (!resolved.ok) throw refused(resolved.error);
    cwd = resolved.cwd;
  }
  const agentId = state.nextChildId(input.agentId);
  const options = {
    agentId,
    reason: 'fork' as const,
    nowMs: workflowNowMs(),
    ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(request.worktree ? { worktree: true } : {}),
  };
  const refusal = branchRefusal(previous, boundary, options);
  if (refusal) throw refused(refusal);
  const slot = await tree.reserveSlot(agentId);
  if (slot) throw refused(slot);
  const forked = branchInput(previous, boundary, options);
  await children.start(
    {
      ...forked,
      parentAgentId: input.agentId,
      rootAgentId: input.rootAgentId,
      depth: input.depth + 1,
      limits: input.limits,
      background: true,
      inForegroundChain: false,
      ...(input.taskBoard ? { taskBoard: input.taskBoard } : {}),
    },
    `fork:${request.sourceAgentId}@${request.turn}`,
    true,
    { notify: false },
  );
  return { agentId, startedBy: input.agentId, turn: request.turn, sourceAgentId: request.sourceAgentId };
}
