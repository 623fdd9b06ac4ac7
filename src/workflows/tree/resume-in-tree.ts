import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { ResumeDescendantAck, ResumeDescendantInput, ResumeState } from '../../shared/protocol/definitions';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { resumeInput } from '../../shared/agents/resume';
import { branchInput, branchRefusal } from '../../shared/rewind/branch-input';
import { findBoundary } from '../../shared/rewind/turns';
import { workflowNowMs } from '../runtime/clock';
import { setupActivities, setupOptions } from '../runtime/activity-proxies';
import type { AgentParts } from '../loop/agent-parts';

/** A refused resume as an ApplicationFailure: any other error would fail the workflow task, not the update. */
const refused = (detail: string) =>
  ApplicationFailure.create({
    type: ErrorType.ResumeRefused,
    message: errorText(ErrorType.ResumeRefused, detail),
    nonRetryable: true,
  });

/** Why a finished agent may not be resumed (stopped, or still running), or undefined. */
export function resumeRefusal(
  previous: Pick<ResumeState, 'status' | 'stoppedBy' | 'result'>,
  agentId: string,
  allowStopped: boolean,
): string | undefined {
  if (previous.status !== 'finished')
    return `agent ${agentId} is still running; send it a message instead of resuming it.`;
  const stopped =
    previous.stoppedBy ?? (previous.result?.status === 'cancelled' ? (previous.result.error ?? 'a stop') : undefined);
  if (stopped && !allowStopped) {
    return `agent ${agentId} was stopped (${stopped}); stopped agents are not resumed unless asked explicitly (subagents resume --force, or allowStopped).`;
  }
  return undefined;
}

/** What resuming a descendant uses of the agent: its limits, its children and its tree's slots. */
type ResumingAgent = Pick<AgentParts, 'input' | 'children' | 'tree'>;

/** Resume inside the tree: the nearest running ancestor restarts the agent as its own background child (docs/architecture.md). */
export async function resumeDescendant(
  agent: ResumingAgent,
  request: ResumeDescendantInput,
): Promise<ResumeDescendantAck> {
  try {
    return await resumeInTree(agent, request);
  } catch (error) {
    if (error instanceof ApplicationFailure || isCancellation(error)) throw error;
    throw refused(`${request.agentId} could not be resumed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function resumeInTree(agent: ResumingAgent, request: ResumeDescendantInput): Promise<ResumeDescendantAck> {
  const { input, children, tree } = agent;
  let previous: ResumeState;
  try {
    previous = await setupActivities.fetchResumeState.executeWithOptions(
      { ...setupOptions, summary: `resume ${request.agentId}`.slice(0, 120) },
      [{ agentId: request.agentId }],
    );
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure)
      throw refused(`${request.agentId} cannot be resumed: ${error.cause.message}`);
    throw error;
  }
  const refusal = resumeRefusal(previous, request.agentId, request.allowStopped === true);
  if (refusal) throw refused(refusal);
  if (children.isRunning(request.agentId)) throw refused(`agent ${request.agentId} is already running.`);
  if (children.runningCount >= input.limits.maxChildrenPerAgent) {
    throw refused(
      `${input.agentId} already has ${children.runningCount} running subagents (limit ${input.limits.maxChildrenPerAgent}); try again when one has finished.`,
    );
  }
  const slot = await tree.reserveSlot(request.agentId);
  if (slot) throw refused(slot);
  const overrides: Partial<AgentWorkflowInput> = { background: true, inForegroundChain: false };
  const next = request.rewind
    ? { ...rewoundInput(previous, request, request.rewind), ...overrides }
    : resumeInput(previous, request.prompt, overrides);
  await children.start(next, `resume:${request.agentId}`, true, { notify: false });
  return { agentId: request.agentId, startedBy: input.agentId };
}

/** A finished descendant rewound (docs/rewind.md): its new run starts at the boundary, with the prompt if one came. */
function rewoundInput(
  previous: ResumeState,
  request: ResumeDescendantInput,
  rewind: NonNullable<ResumeDescendantInput['rewind']>,
): AgentWorkflowInput {
  const boundary = findBoundary(previous.carried.turns ?? [], rewind.turn, request.agentId);
  if (typeof boundary === 'string') throw refused(boundary);
  const options = {
    agentId: request.agentId,
    reason: 'rewind' as const,
    nowMs: workflowNowMs(),
    ...(request.prompt.trim() !== '' ? { prompt: request.prompt } : {}),
    ...(rewind.files ? { files: true } : {}),
  };
  const refusal = branchRefusal(previous, boundary, options);
  if (refusal) throw refused(refusal);
  return branchInput(previous, boundary, options);
}
