import type { Payload } from '@temporalio/common';
import type proto from '@temporalio/proto';
import type { ModelCallResult } from '../shared/model/model-call';
import type { ModelCallFacts, TimelineEvent } from './timeline';

type History = proto.temporal.api.history.v1.IHistory;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Decodes the first value of a payload list (through the client's codecs and payload converter). */
export type PayloadDecoder = (payloads: Payload[] | null | undefined) => Promise<unknown>;

/** What one run's history says about its agent, for a transcript. */
export interface RunFacts {
  events: TimelineEvent[];
  /** Workflow ids of the children it started, in order. */
  childIds: string[];
  /** Its decoded workflow input. */
  input: unknown;
  /** Decoded results of completed `createWorktree` (git) and `adoptHookWorktree` (a WorktreeCreate hook's) activities. */
  worktrees: unknown[];
}

// Events that wake the workflow; a message appended in that wake-up dates from the event.
const inboundAttributes = [
  'activityTaskCompletedEventAttributes',
  'activityTaskFailedEventAttributes',
  'activityTaskTimedOutEventAttributes',
  'activityTaskCanceledEventAttributes',
  'childWorkflowExecutionStartedEventAttributes',
  'childWorkflowExecutionCompletedEventAttributes',
  'childWorkflowExecutionFailedEventAttributes',
  'childWorkflowExecutionCanceledEventAttributes',
  'childWorkflowExecutionTimedOutEventAttributes',
  'childWorkflowExecutionTerminatedEventAttributes',
  'startChildWorkflowExecutionFailedEventAttributes',
  'timerFiredEventAttributes',
  'workflowExecutionSignaledEventAttributes',
  'workflowExecutionUpdateAcceptedEventAttributes',
  'workflowExecutionCancelRequestedEventAttributes',
  'externalWorkflowExecutionSignaledEventAttributes',
  'signalExternalWorkflowExecutionFailedEventAttributes',
  'externalWorkflowExecutionCancelRequestedEventAttributes',
  'requestCancelExternalWorkflowExecutionFailedEventAttributes',
] as const satisfies readonly (keyof HistoryEvent)[];

/** A local activity's result (e.g. a Read run inside the workflow task): recorded when that task completes. */
const isLocalActivityMarker = (event: HistoryEvent): boolean =>
  event.markerRecordedEventAttributes?.markerName === 'core_local_activity';

const asNumber = (value: { toNumber(): number } | number | null | undefined): number =>
  typeof value === 'number' ? value : (value?.toNumber() ?? 0);

function eventTimeMs(event: HistoryEvent): number {
  return asNumber(event.eventTime?.seconds) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
}

function callFacts(result: Partial<ModelCallResult> | undefined): ModelCallFacts | undefined {
  if (
    !result ||
    typeof result.id !== 'string' ||
    typeof result.model !== 'string' ||
    !result.usage ||
    !result.stopReason
  )
    return undefined;
  return {
    id: result.id,
    model: result.model,
    stopReason: result.stopReason,
    usage: result.usage,
    ...(result.requestId ? { requestId: result.requestId } : {}),
  };
}

/** Reads one run's history: the timeline (decoding model results only to see whether they had content), children, input, worktrees. */
export async function readRunHistory(history: History, decode: PayloadDecoder): Promise<RunFacts> {
  const facts: RunFacts = { events: [], childIds: [], input: undefined, worktrees: [] };
  const activityTypes = new Map<number, string>();
  for (const event of history.events ?? []) {
    const timeMs = eventTimeMs(event);
    if (event.workflowExecutionStartedEventAttributes) {
      facts.events.push({ kind: 'runStarted', timeMs });
      facts.input = await decode(event.workflowExecutionStartedEventAttributes.input?.payloads);
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const name = scheduled.activityType?.name ?? '';
      activityTypes.set(asNumber(event.eventId), name);
      if (name === 'callModel') facts.events.push({ kind: 'modelScheduled', timeMs });
      continue;
    }
    const childId = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (childId) {
      if (!facts.childIds.includes(childId)) facts.childIds.push(childId);
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const activityType = completed ? activityTypes.get(asNumber(completed.scheduledEventId)) : undefined;
    if (completed && activityType === 'callModel') {
      const result = (await decode(completed.result?.payloads).catch(() => undefined)) as
        Partial<ModelCallResult> | undefined;
      const call = callFacts(result);
      facts.events.push({
        kind: 'modelCompleted',
        timeMs,
        producedMessage: result?.content === undefined || result.content.length > 0,
        ...(call ? { call } : {}),
      });
      continue;
    }
    if (completed && (activityType === 'createWorktree' || activityType === 'adoptHookWorktree'))
      facts.worktrees.push(await decode(completed.result?.payloads).catch(() => undefined));
    if (inboundAttributes.some((key) => event[key]) || isLocalActivityMarker(event))
      facts.events.push({ kind: 'inbound', timeMs });
  }
  return facts;
}
