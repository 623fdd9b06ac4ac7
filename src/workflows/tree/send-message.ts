import type { AgentWorkflowInput } from '../../shared/agents/agent';
import { messageSignal } from '../../shared/protocol/definitions';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolUseBlock } from '../../shared/model/messages';
import { resumeInput } from '../../shared/agents/resume';
import type { ToolOutcome } from '../../shared/tools/tool-results';

import { setupActivities } from '../runtime/activity-proxies';
import { signalBestEffort } from '../runtime/best-effort-signal';
import type { Children } from './children';
import type { TreeLink } from './tree-link';
import { asyncLaunchedText } from '../context/projection';

const error = (content: string): ToolOutcome => ({ content, isError: true });

/** The refusal of a resume by this agent's own limit or the tree's (pause, budget, size), or undefined when a slot was reserved. */
async function resumeSlotRefusal(
  childId: string,
  input: AgentWorkflowInput,
  children: Children,
  tree: TreeLink,
): Promise<string | undefined> {
  if (children.runningCount >= input.limits.maxChildrenPerAgent) {
    return errorText(
      ErrorType.SpawnLimitReached,
      `this agent already has ${children.runningCount} running subagents (limit ${input.limits.maxChildrenPerAgent}). Wait for one to finish; do not retry at once.`,
    );
  }
  return tree.reserveSlot(childId);
}

/** The SendMessage tool: a running agent gets it at its next boundary; a finished (not stopped) child is resumed. */
export async function sendMessageTool(
  call: ToolUseBlock,
  input: AgentWorkflowInput,
  children: Children,
  tree: TreeLink,
): Promise<ToolOutcome> {
  const to = typeof call.input.to === 'string' ? call.input.to.trim() : '';
  const text = typeof call.input.message === 'string' ? call.input.message : '';
  if (!to || !text.trim())
    return error(errorText(ErrorType.InvalidToolInput, '"to" (an agent name or agentId) and "message" are required.'));
  if (to === input.agentId || to === input.name) return error('You cannot send a message to yourself.');

  const task = children.find(to);
  if (task?.status === 'running') return children.message(task, text);
  if (task) {
    if (task.stoppedBy || task.status === 'cancelled') {
      return error(
        `Agent ${task.agentId} was stopped${task.stoppedBy ? ` (${task.stoppedBy})` : ''}; stopped agents are not resumed automatically.`,
      );
    }
    const previous = await setupActivities.fetchResumeState({ agentId: task.agentId });
    if (previous.stoppedBy)
      return error(
        `Agent ${task.agentId} was stopped by ${previous.stoppedBy}; stopped agents are not resumed automatically.`,
      );
    // A resume is a new agent run in the tree: the same checks as a spawn (the root decides pause, budget and size).
    const refusal = await resumeSlotRefusal(task.agentId, input, children, tree);
    if (refusal) return error(refusal);
    const resumed = await children.start(
      resumeInput(previous, `<message from="${input.agentId}">\n${text}\n</message>`, {
        background: true,
        inForegroundChain: false,
      }),
      call.id,
      true,
    );
    return {
      content: `Resumed ${resumed.agentId} with your message.\n${asyncLaunchedText(resumed.agentId, resumed.description)}`,
      isError: false,
    };
  }
  // Any other agent of the same tree (e.g. the parent or a sibling) addressed by agentId.
  const inTree = to === input.rootAgentId || to.startsWith(`${input.rootAgentId}.`);
  if (!inTree)
    return error(
      `No agent "${to}" in this tree. Address your own subagents by name or agentId, or another agent of the tree by agentId.`,
    );
  if (await signalBestEffort(to, messageSignal, { from: input.agentId, text })) {
    return { content: `Message queued for ${to}; it is delivered at its next turn boundary.`, isError: false };
  }
  return error(`Agent ${to} is not running, so the message could not be delivered.`);
}
