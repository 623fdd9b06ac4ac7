// Where a durable agent's time goes, read from its history: how long each task waited for a poller
// (scheduled → started) and how long the worker spent on it (started → completed).
import type proto from '@temporalio/proto';
import { isWorkspaceTool } from '../../src/shared/policy/tool-classification';
import { percentile } from './bench-env';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export const taskKinds = ['workflowTask', 'callModel', 'tools', 'otherActivities'] as const;
export type TaskKind = (typeof taskKinds)[number];

/** Milliseconds per task kind: `wait` = scheduled → started, `run` = started → completed. */
export interface TaskTimes {
  wait: Record<TaskKind, number[]>;
  run: Record<TaskKind, number[]>;
  /** Tool calls run as local activities, inside workflow tasks (their time is part of `run.workflowTask`). */
  localTools: number;
  /** Reads that came back with their model call (src/workflows/tools/pre-reads.ts; their time is part of `run.callModel`). */
  preReadTools: number;
}

const emptyKinds = (): Record<TaskKind, number[]> => ({
  workflowTask: [],
  callModel: [],
  tools: [],
  otherActivities: [],
});
export const emptyTaskTimes = (): TaskTimes => ({
  wait: emptyKinds(),
  run: emptyKinds(),
  localTools: 0,
  preReadTools: 0,
});

const timeOf = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

function activityKind(scheduled: HistoryEvent | undefined): TaskKind {
  const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
  if (type === 'callModel') return 'callModel';
  return isWorkspaceTool(type) ? 'tools' : 'otherActivities';
}

/** A payload's JSON (the SDK's default converter), or undefined when there is none or it does not parse. */
function jsonOf(data: Uint8Array | null | undefined): unknown {
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString()) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Tool calls a local activity's marker stands for: 1 for a workspace tool (Read runs so, docs/operations.md
 * "Worker tuning"), one per Read of a `readBatch` (from its result), 0 for any other marker.
 */
function localToolCalls(event: HistoryEvent): number {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return 0;
  const type =
    (jsonOf(marker.details?.data?.payloads?.[0]?.data) as { activity_type?: string } | undefined)?.activity_type ?? '';
  if (isWorkspaceTool(type)) return 1;
  const results = type === 'readBatch' ? jsonOf(marker.details?.result?.payloads?.[0]?.data) : undefined;
  return Array.isArray(results) ? results.length : 0;
}

/** Reads a model call's result carries (`preReads`, src/workflows/tools/pre-reads.ts). */
function preReadCalls(data: Uint8Array | null | undefined): number {
  return Object.keys((jsonOf(data) as { preReads?: object } | undefined)?.preReads ?? {}).length;
}

/** Adds the task times of one history's events to `into`. */
export function addTaskTimes(events: readonly HistoryEvent[], into: TaskTimes): void {
  const byId = new Map(events.map((event) => [Number(event.eventId), event]));
  const add = (
    bucket: Record<TaskKind, number[]>,
    kind: TaskKind,
    from: HistoryEvent | undefined,
    to: HistoryEvent,
  ) => {
    if (from) bucket[kind].push(timeOf(to) - timeOf(from));
  };
  for (const event of events) {
    const workflowStarted = event.workflowTaskStartedEventAttributes;
    if (workflowStarted) add(into.wait, 'workflowTask', byId.get(Number(workflowStarted.scheduledEventId)), event);
    const workflowCompleted = event.workflowTaskCompletedEventAttributes;
    if (workflowCompleted) add(into.run, 'workflowTask', byId.get(Number(workflowCompleted.startedEventId)), event);
    const activityStarted = event.activityTaskStartedEventAttributes;
    if (activityStarted) {
      const scheduled = byId.get(Number(activityStarted.scheduledEventId));
      add(into.wait, activityKind(scheduled), scheduled, event);
    }
    into.localTools += localToolCalls(event);
    const activityCompleted = event.activityTaskCompletedEventAttributes;
    if (activityCompleted) {
      const kind = activityKind(byId.get(Number(activityCompleted.scheduledEventId)));
      add(into.run, kind, byId.get(Number(activityCompleted.startedEventId)), event);
      if (kind === 'callModel') into.preReadTools += preReadCalls(activityCompleted.result?.payloads?.[0]?.data);
    }
  }
}

/** Median of a list, NaN when empty (a kind the runs never had). */
export const medianOf = (values: number[]): number => (values.length === 0 ? Number.NaN : percentile(values, 50));
