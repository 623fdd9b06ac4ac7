// An agent's whole history, across its runs (it may continue-as-new), and what its checkpoints take of it.
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { eventBytes } from './bench-env';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Size of an agent's history over all its runs, and of the local-activity markers of its checkpoints. */
export interface HistorySize {
  runs: number;
  events: number;
  bytes: number;
  checkpointMarkers: number;
  checkpointMarkerBytes: number;
}

/** The events of every run of `workflowId`, oldest run first. */
export async function agentHistory(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push({ runId: execution.runId, start: execution.startTime.getTime() });
  runs.sort((left, right) => left.start - right.start);
  const events: HistoryEvent[] = [];
  for (const run of runs)
    events.push(...((await client.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? []));
  return events;
}

/** True for the marker of a `checkpointWorkspace` local activity (its type is in the marker's data payload). */
function isCheckpointMarker(event: HistoryEvent): boolean {
  const payloads = event.markerRecordedEventAttributes?.details?.data?.payloads ?? [];
  return payloads.some((payload) =>
    Buffer.from(payload.data ?? [])
      .toString('utf8')
      .includes('checkpointWorkspace'),
  );
}

/** Events and bytes of an agent's history over all its runs. */
export async function historySize(client: Client, workflowId: string): Promise<HistorySize> {
  const events = await agentHistory(client, workflowId);
  const markers = events.filter(isCheckpointMarker);
  const runs = events.filter((event) => event.workflowExecutionStartedEventAttributes).length;
  return {
    runs,
    events: events.length,
    bytes: events.reduce((sum, event) => sum + eventBytes(event), 0),
    checkpointMarkers: markers.length,
    checkpointMarkerBytes: markers.reduce((sum, event) => sum + eventBytes(event), 0),
  };
}
