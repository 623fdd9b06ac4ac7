import { ActivityCancellationType, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { ErrorType } from '../shared/errors';

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
 * Bash is not idempotent: one attempt only, so a worker crash never silently re-runs a command.
 * The short heartbeat timeout notices a lost worker quickly; the workflow then tells the model.
 */
export const shellToolOptions: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
};

export const setupActivities = proxyActivities<Activities>(setupOptions);
export const modelActivities = proxyActivities<Activities>(modelOptions);
export const fileToolActivities = proxyActivities<Activities>(fileToolOptions);
export const shellToolActivities = proxyActivities<Activities>(shellToolOptions);
