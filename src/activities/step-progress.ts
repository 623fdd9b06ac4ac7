import type { Client } from '@temporalio/client';
import { readLiveActivities } from '../client/live-activities';
import { stepOutputOf, type StepOutput } from '../shared/protocol/step-output';

/** Which run's step to look at: the agent's own workflow. */
export interface StepProgressInput {
  workflowId: string;
  runId: string;
}

/**
 * Creates `readStepOutput`, which the stall watchdog runs (as a local activity) before it calls a step
 * stalled: the workflow cannot see heartbeats, but `describe` shows each pending activity's last
 * heartbeat details (src/shared/protocol/live-activity.ts), from which it takes how much output each has produced.
 */
export function createStepProgressActivities(temporalClient: Client) {
  return {
    async readStepOutput(input: StepProgressInput): Promise<StepOutput> {
      return stepOutputOf(await readLiveActivities(temporalClient.workflow.getHandle(input.workflowId, input.runId)));
    },
  };
}
