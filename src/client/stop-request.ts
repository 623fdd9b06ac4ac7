import { randomUUID } from 'node:crypto';
import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { StopNotice } from '../shared/protocol/definitions';
import { stopNoticeSchema } from '../shared/protocol/input-schemas';
import { inputLimits } from '../shared/protocol/limits';
import { reasonFor } from '../shared/protocol/stop-notice-reason';

/** gRPC's NOT_FOUND: the agent does not exist, or its workflow has already closed. */
const grpcNotFound = 5;

/** Cancels with the stop notice in the request's `reason`, which Temporal's TypeScript client cannot send itself. */
export async function cancelWithNotice(handle: WorkflowHandle, notice: StopNotice): Promise<void> {
  // The agent would take a notice it cannot read for none at all: refuse it here, before anything is stopped.
  if (!stopNoticeSchema.safeParse(notice).success) {
    throw new Error(
      `A stop needs "by" of 1 to ${inputLimits.maxIdChars} characters and a reason of at most ${inputLimits.maxShortTextChars}; nothing was stopped.`,
    );
  }
  const { client, workflowId } = handle;
  // The server accepts cancelling a closed workflow: ask first, so a finished agent reads as WorkflowNotFoundError.
  const { status } = await handle.describe();
  if (status.name !== 'RUNNING')
    throw new WorkflowNotFoundError(`workflow execution already ${status.name.toLowerCase()}`, workflowId, undefined);
  // A handle from start() names the run chain it started, as its cancel() would; one from getHandle() the current run.
  const { firstExecutionRunId } = handle as { firstExecutionRunId?: string };
  try {
    await client.workflowService.requestCancelWorkflowExecution({
      namespace: client.options.namespace,
      identity: client.options.identity,
      requestId: randomUUID(),
      workflowExecution: { workflowId },
      ...(firstExecutionRunId ? { firstExecutionRunId } : {}),
      reason: reasonFor(notice),
    });
  } catch (error) {
    if (isGrpcServiceError(error) && error.code === grpcNotFound)
      throw new WorkflowNotFoundError(error.details || 'Workflow not found', workflowId, undefined);
    throw isGrpcServiceError(error) ? new ServiceError('Failed to cancel workflow', { cause: error }) : error;
  }
}
