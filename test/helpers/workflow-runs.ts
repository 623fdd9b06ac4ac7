// Every run of a workflow id, read back along its continue-as-new chain (no visibility lag). No vitest
// import: the chaos and cluster suites run it under tsx.
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';

export type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface WorkflowRun {
  runId: string;
  events: HistoryEvent[];
  memo: Record<string, unknown>;
}

/** The latest run and every run it continued from, oldest first (at most `limit`). */
export async function workflowRuns(client: Client, workflowId: string, limit = 100): Promise<WorkflowRun[]> {
  const runs: WorkflowRun[] = [];
  let runId: string | undefined;
  do {
    const handle = client.workflow.getHandle(workflowId, runId);
    const description = await handle.describe();
    const events = (await handle.fetchHistory()).events ?? [];
    runs.unshift({ runId: description.runId, events, memo: description.memo ?? {} });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId && runs.length < limit);
  return runs;
}

/** The build ids of a run's completed workflow tasks, in order, as the server recorded them. */
export function taskBuildIds(run: WorkflowRun): string[] {
  return run.events
    .filter((event) => event.workflowTaskCompletedEventAttributes)
    .map((event) => event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? '(none)');
}

/** How many workflow tasks of the run failed (a non-determinism error among them). */
export function failedWorkflowTasks(run: WorkflowRun): number {
  return run.events.filter((event) => event.workflowTaskFailedEventAttributes).length;
}
