import {
  ActivityCancellationType,
  type RetryPolicy,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import { ErrorType } from '../../shared/protocol/errors';

/** The activity interface, imported as a type only (workflow code never loads activity modules). */
export type Activities = ReturnType<typeof createActivities>;

/** Quick local setup I/O; a 10 s heartbeat timeout retries an attempt lost with its worker. */
export const setupOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 5 },
  cancellationType: ActivityCancellationType.TRY_CANCEL,
};

/** Setup steps as local activities, inside the workflow task, for agents whose files every worker sees. */
export const localSetupOptions: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
  cancellationType: ActivityCancellationType.TRY_CANCEL,
};

/** A Bash line's analysis for permission decisions (src/activities/shell-syntax): a parse, pure and quick, run locally. */
export const shellSyntaxOptions: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
};

/** StructuredOutput's schema checks (src/activities/structured-output.ts): ajv on a cached schema, quick, run locally. */
export const structuredOutputOptions: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
};

/** Workspace checkpoints (docs/rewind.md): retried for about two minutes, past the store's 20 s stale-lock age, so a lock a killed worker's git left is cleared by a later attempt. */
const checkpointRetry: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '15 seconds',
  maximumAttempts: 12,
};
export const checkpointOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: checkpointRetry,
  cancellationType: ActivityCancellationType.TRY_CANCEL,
};
export const localCheckpointOptions: LocalActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: checkpointRetry,
  cancellationType: ActivityCancellationType.TRY_CANCEL,
};

/** Model calls: long, streaming with heartbeats; Temporal owns the retries (the SDK runs with maxRetries 0). */
export const modelOptions: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [
      ErrorType.ModelBadRequest,
      ErrorType.ModelAuthentication,
      ErrorType.ModelNotFound,
      ErrorType.ModelPermission,
    ],
  },
};

/** Read/Glob/Grep/Write/Edit: short, idempotent (Edit/Write recognise their own earlier effect). */
export const fileToolOptions: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 3 },
};

/** Read as a local activity (docs/operations.md): bounded and read-only, so a crash simply re-runs it. */
export const localReadOptions: LocalActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

/** Bash is not idempotent: one attempt, so a worker crash never silently re-runs a command. */
export const shellToolOptions: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
};

/** Hook commands (docs/hooks.md): one attempt, as a hook may have effects; the timeout is set per call. */
export const hookOptions: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
};

/** WebFetch and WebSearch: a fetch and a model call each; read-only, so retried (model errors that cannot pass are not). */
export const webToolOptions: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [
      ErrorType.ModelBadRequest,
      ErrorType.ModelAuthentication,
      ErrorType.ModelNotFound,
      ErrorType.ModelPermission,
    ],
  },
};

/** Starting an agent's MCP servers: waits up to 30 s for required ones, heartbeating every second. */
export const mcpSetupOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { maximumAttempts: 3 },
};

/** An MCP tool that may run again (read-only or idempotent): retried when its server or worker was lost. */
export const mcpToolOptions: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/** Any other MCP tool: one attempt, as Bash; a lost worker is reported to the model as "may have partially run". */
export const mcpToolOnceOptions: ActivityOptions = { ...mcpToolOptions, retry: { maximumAttempts: 1 } };

/** Script sources (src/activities/scripts): reading a few small files, or one query; they answer refusals, never throw them. */
export const scriptOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
  cancellationType: ActivityCancellationType.TRY_CANCEL,
};

export const setupActivities = proxyActivities<Activities>(setupOptions);
export const checkpointActivities = proxyActivities<Activities>(checkpointOptions);
export const localCheckpointActivities = proxyLocalActivities<Activities>(localCheckpointOptions);
export const localSetupActivities = proxyLocalActivities<Activities>(localSetupOptions);
export const shellSyntaxActivities = proxyLocalActivities<Activities>(shellSyntaxOptions);
export const structuredOutputActivities = proxyLocalActivities<Activities>(structuredOutputOptions);
export const modelActivities = proxyActivities<Activities>(modelOptions);
export const fileToolActivities = proxyActivities<Activities>(fileToolOptions);
export const localReadActivities = proxyLocalActivities<Activities>(localReadOptions);
export const shellToolActivities = proxyActivities<Activities>(shellToolOptions);
export const webToolActivities = proxyActivities<Activities>(webToolOptions);
export const hookActivities = proxyActivities<Activities>(hookOptions);
export const mcpSetupActivities = proxyActivities<Activities>(mcpSetupOptions);
export const mcpToolActivities = proxyActivities<Activities>(mcpToolOptions);
export const mcpToolOnceActivities = proxyActivities<Activities>(mcpToolOnceOptions);
export const scriptActivities = proxyActivities<Activities>(scriptOptions);
