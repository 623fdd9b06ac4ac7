import type { Client } from '@temporalio/client';
import { readLiveActivities } from '../client/live-activities';
import { stepOutputOf, type StepOutput } from '../shared/protocol/step-output';

/** Which run's step to look at: the agent's own workflow. */
export interface StepProgressInput {
  workflowId: string;
  runId: string;
}

/** Creates `readStepOutput`: pending activities' output from `describe`, as workflows cannot see heartbeats. */
export function createStepProgressActivities(temporalClient: Client) {
  return {
    async readStepOutput(input: StepProgressInput): Promise<StepOutput> {
      return stepOutputOf(await readLiveActivities(temporalClient.workflow.getHandle(input.workflowId, input.runId)));
    },
  };
}
