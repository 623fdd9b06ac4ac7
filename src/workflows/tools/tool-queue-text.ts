import { toolQueueWaitMs } from '../../shared/tools/custom-tools';
import { ErrorType, errorText } from '../../shared/protocol/errors';

/** What the agent is told when no worker polls a tool's own task queue (docs/tools.md, "Tool task queues"): the call did not run. */
export function toolWorkerGoneText(name: string, taskQueue: string): string {
  return errorText(
    ErrorType.ToolWorkerUnavailable,
    `${name} did not run: no worker of task queue "${taskQueue}" took it within ${Math.round(toolQueueWaitMs / 1000)} s. ` +
      `Start a worker for that queue (subagents worker --tools ${name} --task-queue ${taskQueue}, docs/tools.md "Tool task queues") and ask again.`,
  );
}
