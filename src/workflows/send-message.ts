import { getExternalWorkflowHandle, isCancellation } from '@temporalio/workflow';
import { messageSignal } from '../shared/definitions';
import type { ToolUseBlock } from '../shared/messages';
import { setupActivities } from './activity-proxies';
import type { AgentRuntime } from './agent-runtime';
import { asyncLaunchedText } from './projection';
import type { Subagents } from './subagents';
import { resumeInput } from './resume';
import type { ToolOutcome } from './tool-results';

const error = (content: string): ToolOutcome => ({ content, isError: true });

/**
 * The SendMessage tool: a running agent of the tree gets the message at its next turn boundary;
 * a finished child of this agent is resumed with it (a new run of the same agentId, in the
 * background). An agent that was stopped is not auto-resumed.
 */
export async function sendMessageTool(call: ToolUseBlock, runtime: AgentRuntime, subagents: Subagents): Promise<ToolOutcome> {
  const to = typeof call.input.to === 'string' ? call.input.to.trim() : '';
  const text = typeof call.input.message === 'string' ? call.input.message : '';
  if (!to || !text.trim()) return error('InvalidToolInput: "to" (an agent name or agentId) and "message" are required.');
  const { input } = runtime;
  if (to === input.agentId || to === input.name) return error('You cannot send a message to yourself.');

  const task = subagents.findTask(to);
  if (task?.status === 'running') {
    const delivered = await subagents.message(to, text);
    if (delivered) return delivered;
  }
  if (task) {
    if (task.stoppedBy || task.status === 'cancelled') {
      return error(`Agent ${task.agentId} was stopped${task.stoppedBy ? ` (${task.stoppedBy})` : ''}; stopped agents are not resumed automatically.`);
    }
    const previous = await setupActivities.fetchResumeState({ agentId: task.agentId });
    if (previous.stoppedBy) return error(`Agent ${task.agentId} was stopped by ${previous.stoppedBy}; stopped agents are not resumed automatically.`);
    const resumed = await subagents.startChildTask(
      resumeInput(previous, `<message from="${input.agentId}">\n${text}\n</message>`, { background: true, inForegroundChain: false }),
      call.id,
      true,
    );
    return { content: `Resumed ${resumed.agentId} with your message.\n${asyncLaunchedText(resumed.agentId, resumed.description)}`, isError: false };
  }
  // Any other agent of the same tree (e.g. the parent or a sibling) addressed by agentId.
  const inTree = to === input.rootAgentId || to.startsWith(`${input.rootAgentId}.`);
  if (!inTree) return error(`No agent "${to}" in this tree. Address your own subagents by name or agentId, or another agent of the tree by agentId.`);
  try {
    await getExternalWorkflowHandle(to).signal(messageSignal, { from: input.agentId, text });
    return { content: `Message queued for ${to}; it is delivered at its next turn boundary.`, isError: false };
  } catch (failure) {
    if (isCancellation(failure)) throw failure;
    return error(`Agent ${to} is not running, so the message could not be delivered.`);
  }
}
