import { ActivityCancellationType, proxyActivities, proxyLocalActivities, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import { ErrorType } from '../../shared/protocol/errors';

/** The activity interface, imported as a type only (workflow code never loads activity modules). */
export type Activities = ReturnType<typeof createActivities>;

/**
 * Rendering the system prompt, loading definitions, worktrees, reading another agent's state: quick
 * local I/O. They heartbeat every second (src/activities/heartbeating.ts), so an attempt lost with a
 * crashed worker is retried after the 10 s heartbeat timeout instead of the whole minute.
 */
export const setupOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 5 },
  cancellationType: ActivityCancellationType.TRY_CANCEL,
};

/**
 * Setup steps run as local activities (docs/operations.md, "Worker tuning"): on the worker running the
 * workflow task, inside it — no activity task to schedule, poll and report, no second workflow task.
 * Only for agents whose files every worker sees (no workspace worker). A crash re-runs the step when
 * the workflow task is retried on another worker.
 */
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

/**
 * Read as a local activity (docs/operations.md, "Worker tuning"): on the worker running the workflow
 * task, inside it, for agents whose files every worker sees. Read is bounded (one file, 256 KiB without
 * a range) and read-only, so a crash simply re-runs it when the workflow task is retried.
 */
export const localReadOptions: LocalActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

/**
 * Bash is not idempotent: one attempt only, so a worker crash never silently re-runs a command.
 * The short heartbeat timeout notices a lost worker quickly; the workflow then tells the model.
 */
export const shellToolOptions: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
};

/**
 * Hook commands (docs/hooks.md): one attempt (a hook may have effects), a short heartbeat timeout so a
 * lost worker is noticed; the start-to-close timeout is set per call from the hook's own timeout.
 */
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
    nonRetryableErrorTypes: [ErrorType.ModelBadRequest, ErrorType.ModelAuthentication, ErrorType.ModelNotFound, ErrorType.ModelPermission],
  },
};

/** Starting an agent's MCP servers: waits up to 30 s for required ones, heartbeating every second. */
export const mcpSetupOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { maximumAttempts: 3 },
};

/**
 * An MCP tool that may run again (read-only or idempotent): retried when its server died mid-call or
 * its worker was lost (the short heartbeat timeout notices). Calls heartbeat every second.
 */
export const mcpToolOptions: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/** Any other MCP tool: one attempt, as Bash; a lost worker is reported to the model as "may have partially run". */
export const mcpToolOnceOptions: ActivityOptions = { ...mcpToolOptions, retry: { maximumAttempts: 1 } };

export const setupActivities = proxyActivities<Activities>(setupOptions);
export const localSetupActivities = proxyLocalActivities<Activities>(localSetupOptions);
export const shellSyntaxActivities = proxyLocalActivities<Activities>(shellSyntaxOptions);
export const modelActivities = proxyActivities<Activities>(modelOptions);
export const fileToolActivities = proxyActivities<Activities>(fileToolOptions);
export const localReadActivities = proxyLocalActivities<Activities>(localReadOptions);
export const shellToolActivities = proxyActivities<Activities>(shellToolOptions);
export const webToolActivities = proxyActivities<Activities>(webToolOptions);
export const hookActivities = proxyActivities<Activities>(hookOptions);
export const mcpSetupActivities = proxyActivities<Activities>(mcpSetupOptions);
export const mcpToolActivities = proxyActivities<Activities>(mcpToolOptions);
export const mcpToolOnceActivities = proxyActivities<Activities>(mcpToolOnceOptions);
