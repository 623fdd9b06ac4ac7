import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type proto from '@temporalio/proto';

/** Where recorded histories live; the replay test replays every file here. */
export const historiesDir = path.join(import.meta.dirname, '..', 'fixtures', 'histories');

/**
 * Saves a finished workflow's history for the replay corpus when RECORD_HISTORIES=1
 * (`npm run histories:record`). Normal test runs leave the committed corpus untouched. Without a
 * runId the latest run is saved.
 */
export async function recordHistory(client: Client, workflowId: string, name: string, runId?: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  mkdirSync(historiesDir, { recursive: true });
  writeFileSync(path.join(historiesDir, `${name}.json`), JSON.stringify(history));
}

/** A workflow's history events (its latest run). */
export async function historyEvents(
  client: Client,
  workflowId: string,
): Promise<proto.temporal.api.history.v1.IHistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** What a run's history says its tasks were: the activity types it scheduled (with their inputs) and the local activities it ran. */
export async function taskSteps(
  client: Client,
  workflowId: string,
): Promise<{ scheduled: { name: string; input: unknown }[]; localActivities: string[] }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled: { name: string; input: unknown }[] = [];
  const localActivities: string[] = [];
  for (const event of history.events ?? []) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes)
      scheduled.push({ name: attributes.activityType?.name ?? '', input: decode(attributes.input?.payloads?.[0]) });
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity')
      localActivities.push((decode(marker.details?.data?.payloads?.[0]) as { activity_type: string }).activity_type);
  }
  return { scheduled, localActivities };
}

/** The results of a run's completed activities of one type, in order. */
export async function activityResults(client: Client, workflowId: string, activityType: string): Promise<unknown[]> {
  const events = await historyEvents(client, workflowId);
  const types = new Map<string, string>();
  const results: unknown[] = [];
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '');
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed && types.get(String(completed.scheduledEventId)) === activityType)
      results.push(decode(completed.result?.payloads?.[0]));
  }
  return results;
}

/** Every payload of a run's history as text (its data bytes decoded), to check what the history holds. */
export function payloadText(events: readonly proto.temporal.api.history.v1.IHistoryEvent[]): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('utf8'));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(events);
  return parts.join('\n');
}

const decode = (payload: unknown): unknown =>
  payload ? defaultPayloadConverter.fromPayload(payload as Payload) : undefined;

/** The patch ids a history's markers record, in order (`patched()` / `hasPatch` in workflow code). */
export function patchIdsOf(events: readonly proto.temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const attributes = event.markerRecordedEventAttributes;
    if (attributes?.markerName !== 'core_patch') return [];
    const data = attributes.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [String(JSON.parse(Buffer.from(data).toString()).id)] : [];
  });
}

/** What each `abortRunningCalls` local activity of a run returned: how many calls it aborted (src/workflows/runtime/local-abort.ts). */
export function abortsOf(events: readonly proto.temporal.api.history.v1.IHistoryEvent[]): number[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = decode(marker.details?.data?.payloads?.[0]) as { activity_type?: string } | undefined;
    return data?.activity_type === 'abortRunningCalls' ? [decode(marker.details?.result?.payloads?.[0]) as number] : [];
  });
}

/** Each scheduled activity's type and task queue, by its scheduled event's id. */
export function scheduledActivities(
  events: readonly proto.temporal.api.history.v1.IHistoryEvent[],
): Map<string, { name: string; taskQueue: string }> {
  const scheduled = new Map<string, { name: string; taskQueue: string }>();
  for (const event of events) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes)
      scheduled.set(String(event.eventId), {
        name: attributes.activityType?.name ?? '',
        taskQueue: attributes.taskQueue?.name ?? '',
      });
  }
  return scheduled;
}
/** Each started activity of a history with the type and queue it was scheduled with, and the worker that took it. */
export function activityStarts(
  events: readonly proto.temporal.api.history.v1.IHistoryEvent[],
): { name: string; taskQueue: string; identity: string }[] {
  const scheduled = scheduledActivities(events);
  const starts: { name: string; taskQueue: string; identity: string }[] = [];
  for (const event of events) {
    const started = event.activityTaskStartedEventAttributes;
    const activity = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
    if (started && activity) starts.push({ ...activity, identity: started.identity ?? '' });
  }
  return starts;
}
