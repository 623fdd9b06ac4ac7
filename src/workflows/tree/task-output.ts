import { condition } from '@temporalio/workflow';
import type { AgentResult } from '../../shared/agents/agent';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolUseBlock } from '../../shared/model/messages';
import { describePeek, type AgentPeek } from '../../shared/protocol/peek';
import { taskOutputLimits } from '../../shared/tools/task-output-definition';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import { setupActivities, setupOptions } from '../runtime/activity-proxies';
import type { Children } from './children';
import { projectChildResult } from '../context/projection';

/** TaskOutput's input, validated. */
export interface TaskOutputInput {
  taskId?: string;
  block: boolean;
  timeoutMs: number;
}

const knownFields: ReadonlySet<string> = new Set(['task_id', 'block', 'timeout']);

/** Validates the model's TaskOutput input by hand (like the Agent input): unknown or wrong fields are errors. */
export function parseTaskOutputInput(
  raw: Record<string, unknown>,
): { ok: true; value: TaskOutputInput } | { ok: false; error: string } {
  const problems = Object.keys(raw)
    .filter((key) => !knownFields.has(key))
    .map((key) => `unknown field "${key}"`);
  const taskId = raw.task_id;
  if (taskId !== undefined && taskId !== null && typeof taskId !== 'string')
    problems.push('"task_id" must be a string');
  let block = true;
  if (raw.block === false || raw.block === 'false') block = false;
  else if (raw.block !== undefined && raw.block !== null && raw.block !== true && raw.block !== 'true')
    problems.push('"block" must be a boolean');
  let timeoutMs: number = taskOutputLimits.defaultTimeoutMs;
  if (raw.timeout !== undefined && raw.timeout !== null) {
    const value = typeof raw.timeout === 'string' && raw.timeout.trim() !== '' ? Number(raw.timeout) : raw.timeout;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      problems.push(`"timeout" must be a number of milliseconds from 0 to ${taskOutputLimits.maxTimeoutMs}`);
    else timeoutMs = Math.min(Math.floor(value), taskOutputLimits.maxTimeoutMs);
  }
  if (problems.length > 0)
    return {
      ok: false,
      error: errorText(
        ErrorType.InvalidToolInput,
        `TaskOutput: ${problems.join('; ')}. Fields: task_id (optional), block, timeout.`,
      ),
    };
  const trimmed = typeof taskId === 'string' && taskId.trim() !== '' ? taskId.trim() : undefined;
  return { ok: true, value: { ...(trimmed ? { taskId: trimmed } : {}), block, timeoutMs } };
}

/** TaskOutput's answer, in Claude Code's shape: a retrieval status, the task, its status and its output. */
export function taskOutputText(
  retrieval: 'success' | 'timeout' | 'not_ready',
  agentId: string,
  status: string,
  output: string,
): string {
  return [
    `<retrieval_status>${retrieval}</retrieval_status>`,
    `<task_id>${agentId}</task_id>`,
    '<task_type>local_agent</task_type>',
    `<status>${status}</status>`,
    `<output>\n${output}\n</output>`,
  ].join('\n');
}

async function peek(agentIds: string[]): Promise<AgentPeek[]> {
  return setupActivities.peekAgents.executeWithOptions(
    { ...setupOptions, summary: `peek ${agentIds.join(', ')}`.slice(0, 120) },
    [{ agentIds }],
  );
}

const finishedText = (result: AgentResult) =>
  taskOutputText('success', result.agentId, result.status, projectChildResult(result));

/** The TaskOutput tool (docs/tools.md): a child's live status or result, or the list of running children. */
export async function taskOutputTool(call: ToolUseBlock, children: Children): Promise<ToolOutcome> {
  const parsed = parseTaskOutputInput(call.input);
  if (!parsed.ok) return { content: parsed.error, isError: true };
  const { taskId, block, timeoutMs } = parsed.value;
  if (!taskId) return listRunning(children);
  const task = children.find(taskId);
  if (!task) {
    const own = children.snapshot().map((child) => child.agentId);
    const shown = taskId.length > 200 ? `${taskId.slice(0, 200)}…` : taskId;
    return {
      content: `No task "${shown}" among your own subagents. Your subagents: ${own.join(', ') || '(none)'}.`,
      isError: true,
    };
  }
  if (task.result) return { content: finishedText(task.result), isError: false };
  if (block && timeoutMs > 0 && (await condition(() => task.result !== undefined, timeoutMs)) && task.result) {
    return { content: finishedText(task.result), isError: false };
  }
  const [current] = await peek([task.agentId]);
  // It may have finished meanwhile: its final status then came with the peek.
  if (task.result) return { content: finishedText(task.result), isError: false };
  if (current?.result) return { content: finishedText(current.result), isError: false };
  return {
    content: taskOutputText(
      block && timeoutMs > 0 ? 'timeout' : 'not_ready',
      task.agentId,
      'running',
      current ? describePeek(current) : '(no status)',
    ),
    isError: false,
  };
}

async function listRunning(children: Children): Promise<ToolOutcome> {
  const running = children.snapshot().filter((child) => child.status === 'running');
  if (running.length === 0) return { content: 'No running subagents.', isError: false };
  const peeks = await peek(running.map((child) => child.agentId));
  const sections = running.map((child, index) => {
    const kind = `${child.agentType}${child.background ? ', background' : ''}${child.name ? `, name ${child.name}` : ''}`;
    const described = peeks[index] ? describePeek(peeks[index]) : '(no status)';
    return `<task>\n<task_id>${child.agentId}</task_id> (${kind}): ${child.description}\n${described}\n</task>`;
  });
  return { content: `${running.length} running subagent(s):\n${sections.join('\n')}`, isError: false };
}
