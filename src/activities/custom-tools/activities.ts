// One activity per custom tool, heartbeating so a stop reaches `context.signal` (docs/tools.md, "Custom tools").
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { customToolAllowed, type CustomToolFilter, type ToolTaskQueues } from '../../shared/tools/custom-tools';
import { ErrorType, errorText, messageOf } from '../../shared/protocol/errors';
import type { WorkerTools } from '../../shared/agents/agent-start';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';
import { toolLimits } from '../../shared/tools/tool-definitions';
import { limitResult } from '../tools/result-limit';
import { defaultResultsDir } from '../tools/tool-env';
import { customToolDescriptor, type CustomTool, type CustomToolOutput } from '../../shared/tools/define-tool';

export type CustomToolActivity = (call: ToolCallInput) => Promise<ToolCallResult>;

function resultOf(output: CustomToolOutput): ToolCallResult {
  if (typeof output === 'string') return { content: output, isError: false };
  if (typeof output === 'object' && output !== null && typeof output.content === 'string')
    return { content: output.content, isError: output.isError === true };
  throw new TypeError('run returned neither a string nor { content: string, isError?: boolean }');
}

/** One activity per custom tool, by its name. */
export function createCustomToolActivities(
  tools: readonly CustomTool[],
  resultsDir?: string,
): Record<string, CustomToolActivity> {
  return Object.fromEntries(tools.map((tool) => [tool.name, customToolActivity(tool, resultsDir)]));
}

function customToolActivity(tool: CustomTool, resultsDir: string | undefined): CustomToolActivity {
  return async function runCustomTool(call: ToolCallInput): Promise<ToolCallResult> {
    const parsed = tool.parse(call.input);
    if (!parsed.ok) {
      return {
        isError: true,
        content: errorText(
          ErrorType.InvalidToolInput,
          `${tool.name} was called with invalid input: ${parsed.problems.join('; ')}. Fix the input and call ${tool.name} again.`,
        ),
      };
    }
    const activity = Context.current();
    const beat = setInterval(() => activity.heartbeat(), toolLimits.heartbeatIntervalMs);
    try {
      const output = await tool.run(parsed.value, {
        agentId: call.context.agentId,
        toolUseId: call.toolUseId,
        cwd: call.context.cwd,
        workspaceRoot: call.context.workspaceRoot,
        signal: activity.cancellationSignal,
        heartbeat: (details?: unknown) => activity.heartbeat(details),
        attempt: activity.info.attempt,
      });
      return await limitResult(resultOf(output), call, resultsDir ?? defaultResultsDir());
    } catch (error) {
      // Reported as a cancellation, so an interrupted turn ends as interrupted.
      if (activity.cancellationSignal.aborted) throw new CancelledFailure(`${tool.name} was cancelled`);
      // An idempotent tool's failure is retried by Temporal; at the last attempt the workflow reports it.
      if (tool.idempotent || tool.readOnly) throw error;
      return {
        isError: true,
        content: errorText(ErrorType.CustomToolFailed, `${tool.name} failed: ${messageOf(error)}`),
      };
    } finally {
      clearInterval(beat);
    }
  };
}

/** What the worker says at an agent's start: the custom tools its filter allows, and where built-in tools run. */
export function workerToolsFor(
  tools: readonly CustomTool[],
  taskQueues: ToolTaskQueues | undefined,
  filter: CustomToolFilter | undefined,
): WorkerTools | undefined {
  const descriptors = filter
    ? tools.filter((tool) => customToolAllowed(filter, tool.name)).map(customToolDescriptor)
    : [];
  const routed = taskQueues && Object.keys(taskQueues).length > 0 ? taskQueues : undefined;
  if (descriptors.length === 0 && !routed) return undefined;
  return { descriptors, ...(routed ? { taskQueues: routed } : {}) };
}
