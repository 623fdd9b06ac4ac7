import {
  ActivityCancellationType,
  ActivityFailure,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
  type ActivityOptions,
} from '@temporalio/workflow';
import { toolQueueWaitMs } from '../../shared/tools/custom-tools';
import type { ToolDescriptor, ToolRunner } from '../../shared/tools/extra-tools';
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolCallInput, ToolCallResult, ToolContext } from '../../shared/tools/tools';
import { failureOutcome } from './tool-failure';
import { isWorkerWaitTimeout } from './workspace-activities';
import { toolWorkerGoneText } from './tool-queue-text';

// Custom tools (docs/tools.md): one activity per call as its descriptor, snapshotted at start, says.

type CustomRunner = Extract<ToolRunner, { kind: 'custom' }>;
type CustomToolActivities = Record<string, (call: ToolCallInput) => Promise<ToolCallResult>>;

/** The activity options of one custom tool. */
export function customToolOptions(runner: CustomRunner): ActivityOptions {
  return {
    startToCloseTimeout: runner.timeoutMs,
    ...(runner.heartbeatTimeoutMs ? { heartbeatTimeout: runner.heartbeatTimeoutMs } : {}),
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '1 second', maximumAttempts: runner.maximumAttempts },
    ...(runner.taskQueue ? { taskQueue: runner.taskQueue, scheduleToStartTimeout: toolQueueWaitMs } : {}),
  };
}

/** Runs one call of a custom tool; failures become error results, cancellations propagate. */
export async function runCustomTool(
  descriptor: ToolDescriptor,
  runner: CustomRunner,
  call: ToolUseBlock,
  context: ToolContext,
): Promise<ToolCallResult> {
  const name = descriptor.definition.name;
  const activities = proxyActivities<CustomToolActivities>(customToolOptions(runner));
  const activity = activities[name]!;
  try {
    return await activity.executeWithOptions({ summary: name }, [{ context, toolUseId: call.id, input: call.input }]);
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (runner.taskQueue && isWorkerWaitTimeout(error))
      return { isError: true, content: toolWorkerGoneText(name, runner.taskQueue) };
    if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure && runner.maximumAttempts === 1) {
      return {
        isError: true,
        content: `${name} was interrupted: the worker running it stopped or timed out before it finished, so the call may have partially run. Check its effects before calling it again.`,
      };
    }
    const outcome = failureOutcome(name, error);
    return { content: outcome.content, isError: outcome.isError };
  }
}
