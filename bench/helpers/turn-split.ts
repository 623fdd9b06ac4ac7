// One agent's turns split by its history: from one callModel's scheduling to the next's, how long the workflow tasks,
// the model call, the other activities (the Bash) and the local activities (the checkpoint) took, and whether a task
// went to the normal queue (a worker without the run cached replays its whole history), timed out or failed.
import type proto from '@temporalio/proto';
import { percentile } from './bench-env';
import { ms } from './wait';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** One turn's time by kind (ms) and its workflow tasks. */
export interface TurnSplit {
  wallMs: number;
  workflowTaskMs: number;
  workflowTasks: number;
  modelMs: number;
  /** Every other activity: the Bash. */
  toolMs: number;
  /** Local activities (the checkpoint), by their markers: scheduled to completed. */
  localActivityMs: number;
  normalQueueTasks: number;
  timedOutTasks: number;
  failedTasks: number;
}

const timeOf = (event: HistoryEvent): number =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);

/** Milliseconds of a marker's time: Core writes a Timestamp as RFC 3339 or as seconds and nanos. */
function markerTime(value: unknown): number | undefined {
  if (typeof value === 'string') return Date.parse(value);
  if (value && typeof value === 'object' && 'seconds' in value)
    return Number(value.seconds) * 1000 + Number((value as { nanos?: number }).nanos ?? 0) / 1e6;
  return undefined;
}

/** How long a local activity's marker says it took (Core's LocalActivityMarkerData, JSON). */
function localActivityMs(event: HistoryEvent): number {
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  if (!data) return 0;
  const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>;
  const completed = markerTime(parsed.complete_time);
  const scheduled = markerTime(parsed.original_schedule_time);
  return completed !== undefined && scheduled !== undefined ? completed - scheduled : 0;
}

const emptySplit = (): TurnSplit => ({
  wallMs: 0,
  workflowTaskMs: 0,
  workflowTasks: 0,
  modelMs: 0,
  toolMs: 0,
  localActivityMs: 0,
  normalQueueTasks: 0,
  timedOutTasks: 0,
  failedTasks: 0,
});

/** The turns of a history (its events over all runs, oldest first); the last, unfinished one is left out. */
export function splitTurns(events: readonly HistoryEvent[]): TurnSplit[] {
  const scheduled = new Map<string, { type: string; at: number }>();
  const splits: TurnSplit[] = [];
  let current: TurnSplit | undefined;
  let turnStart = 0;
  let taskStart = 0;
  for (const event of events) {
    const at = timeOf(event);
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      const type = activity.activityType?.name ?? '';
      scheduled.set(String(event.eventId), { type, at });
      if (type === 'callModel') {
        if (current) splits.push({ ...current, wallMs: at - turnStart });
        current = emptySplit();
        turnStart = at;
      }
    }
    if (!current) continue;
    if (event.workflowTaskStartedEventAttributes) taskStart = at;
    if (event.workflowTaskCompletedEventAttributes) {
      current.workflowTaskMs += at - taskStart;
      current.workflowTasks += 1;
    }
    // Kind 1 is NORMAL, 2 STICKY (temporal.api.enums.v1.TaskQueueKind).
    if (event.workflowTaskScheduledEventAttributes?.taskQueue?.kind === 1) current.normalQueueTasks += 1;
    if (event.workflowTaskTimedOutEventAttributes) current.timedOutTasks += 1;
    if (event.workflowTaskFailedEventAttributes) current.failedTasks += 1;
    if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      current.localActivityMs += localActivityMs(event);
    const closed =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    const found = closed ? scheduled.get(String(closed.scheduledEventId)) : undefined;
    if (found && found.type === 'callModel') current.modelMs += at - found.at;
    else if (found) current.toolMs += at - found.at;
  }
  return splits;
}

/** Medians of a stretch of turns, and the workflow tasks that did not go to the worker holding the run. */
export function summariseTurns(label: string, splits: readonly TurnSplit[]): Record<string, number | string> {
  const p50 = (pick: (split: TurnSplit) => number) => ms(percentile(splits.map(pick), 50));
  const sum = (pick: (split: TurnSplit) => number) => splits.reduce((total, split) => total + pick(split), 0);
  return {
    label,
    turns: splits.length,
    wallMsP50: p50((split) => split.wallMs),
    workflowTaskMsP50: p50((split) => split.workflowTaskMs),
    workflowTasksP50: p50((split) => split.workflowTasks),
    localActivityMsP50: p50((split) => split.localActivityMs),
    modelMsP50: p50((split) => split.modelMs),
    toolMsP50: p50((split) => split.toolMs),
    normalQueueTasks: sum((split) => split.normalQueueTasks),
    timedOutTasks: sum((split) => split.timedOutTasks),
    failedTasks: sum((split) => split.failedTasks),
  };
}
