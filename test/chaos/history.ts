// What an agent's workflow histories (every run of its continue-as-new chain) say about it.
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import type { ContentBlock } from '../../src/shared/model/messages';
import { payloadDecoder } from '../../src/transcript/export';
import { workflowRuns } from '../helpers/workflow-runs';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface AgentHistory {
  /** Oldest first. */
  runIds: string[];
  /** Results of completed callModel activities, in order over all runs. */
  modelResults: { content: ContentBlock[] }[];
  /** Bash activities scheduled, per tool_use id (more than one = a re-run). */
  bashScheduled: Map<string, number>;
  /** Bash activities that started with an attempt above 1 (a retry). */
  bashRetries: number;
  /** Children started (workflow ids), over all runs. */
  childIds: string[];
  /** Highest attempt each activity type started with (above 1: Temporal retried it). */
  maxAttempts: Record<string, number>;
  /** Workflow tasks that timed out (a worker took one and died, or did not answer in time). */
  workflowTaskTimeouts: number;
  /** Activities whose final attempt was above 1: when they were scheduled and when the last attempt started (server clock, ms). */
  retriedActivities: { name: string; attempt: number; scheduledAtMs: number; startedAtMs: number }[];
  /** Each of its workflow and activity tasks as a worker took it up, in order: when (ms since epoch) and which. */
  taskStarts: TaskStart[];
}

/** A task a worker took up: `workflow task`, or an activity with its attempt (`callModel attempt 2`). */
export interface TaskStart {
  atMs: number;
  task: string;
}

const eventTimeMs = (event: HistoryEvent): number =>
  asNumber(event.eventTime?.seconds) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);

const asNumber = (value: { toNumber(): number } | number | null | undefined): number =>
  typeof value === 'number' ? value : (value?.toNumber() ?? 0);

/** Reads the agent's latest run and every run it continued from. */
export async function readAgentHistory(client: Client, agentId: string): Promise<AgentHistory> {
  const decode = payloadDecoder(client);
  const runs = await workflowRuns(client, agentId);
  const result: AgentHistory = {
    runIds: runs.map((run) => run.runId),
    modelResults: [],
    bashScheduled: new Map(),
    bashRetries: 0,
    childIds: [],
    maxAttempts: {},
    workflowTaskTimeouts: 0,
    retriedActivities: [],
    taskStarts: [],
  };
  for (const run of runs) {
    const activityTypes = new Map<number, string>();
    const scheduledAt = new Map<number, number>();
    for (const event of run.events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) {
        const name = scheduled.activityType?.name ?? '';
        activityTypes.set(asNumber(event.eventId), name);
        scheduledAt.set(asNumber(event.eventId), eventTimeMs(event));
        if (name === 'Bash') {
          const input = (await decode(scheduled.input?.payloads)) as { toolUseId?: string } | undefined;
          const id = input?.toolUseId ?? '(unknown)';
          result.bashScheduled.set(id, (result.bashScheduled.get(id) ?? 0) + 1);
        }
        continue;
      }
      if (event.workflowTaskTimedOutEventAttributes) result.workflowTaskTimeouts += 1;
      if (event.workflowTaskStartedEventAttributes)
        result.taskStarts.push({ atMs: eventTimeMs(event), task: 'workflow task' });
      const started = event.activityTaskStartedEventAttributes;
      if (started) {
        const name = activityTypes.get(asNumber(started.scheduledEventId)) ?? '';
        const attempt = started.attempt ?? 1;
        result.taskStarts.push({ atMs: eventTimeMs(event), task: `${name} attempt ${attempt}` });
        result.maxAttempts[name] = Math.max(result.maxAttempts[name] ?? 0, attempt);
        if (name === 'Bash' && attempt > 1) result.bashRetries += 1;
        if (attempt > 1) {
          const scheduledAtMs = scheduledAt.get(asNumber(started.scheduledEventId)) ?? 0;
          result.retriedActivities.push({ name, attempt, scheduledAtMs, startedAtMs: eventTimeMs(event) });
        }
      }
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed && activityTypes.get(asNumber(completed.scheduledEventId)) === 'callModel') {
        result.modelResults.push((await decode(completed.result?.payloads)) as { content: ContentBlock[] });
      }
      const childId = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (childId && !result.childIds.includes(childId)) result.childIds.push(childId);
    }
  }
  return result;
}
