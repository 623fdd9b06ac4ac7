// Who ran what, from the histories the server keeps in PostgreSQL: each activity with its task
// queue and the identity of the worker that started it, and each workflow task's worker.
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { workspaceActivityNames } from '../../src/shared/workspace/workspace-routing';
import { scheduledActivities } from '../helpers/histories';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface TaskRecord {
  workflowId: string;
  kind: 'activity' | 'workflow-task';
  /** Activity type, or 'workflow task'. */
  name: string;
  /** The task queue an activity was scheduled on. */
  taskQueue?: string;
  /** The worker identity that started it (`<worker id> <pid>@<host>`). */
  identity: string;
  atMs: number;
  /** The activity's attempt (history keeps the started event of the last one only). */
  attempt?: number;
  /** How the started task ended: a worker answered it (`completed`, `failed`), or the server gave up on it. */
  outcome: 'completed' | 'failed' | 'timed-out' | 'canceled' | 'open';
}

/** The outcome of each started event, by its id, from the events that close tasks. */
function outcomes(events: HistoryEvent[]): Map<string, TaskRecord['outcome']> {
  const closed = new Map<string, TaskRecord['outcome']>();
  const note = (startedEventId: unknown, outcome: TaskRecord['outcome']) => {
    if (startedEventId !== undefined && startedEventId !== null) closed.set(String(startedEventId), outcome);
  };
  for (const event of events) {
    note(event.workflowTaskCompletedEventAttributes?.startedEventId, 'completed');
    note(event.workflowTaskFailedEventAttributes?.startedEventId, 'failed');
    note(event.workflowTaskTimedOutEventAttributes?.startedEventId, 'timed-out');
    note(event.activityTaskCompletedEventAttributes?.startedEventId, 'completed');
    note(event.activityTaskFailedEventAttributes?.startedEventId, 'failed');
    note(event.activityTaskTimedOutEventAttributes?.startedEventId, 'timed-out');
    note(event.activityTaskCanceledEventAttributes?.startedEventId, 'canceled');
  }
  return closed;
}

const asNumber = (value: { toNumber(): number } | number | null | undefined): number =>
  typeof value === 'number' ? value : (value?.toNumber() ?? 0);
const eventTimeMs = (event: HistoryEvent): number =>
  asNumber(event.eventTime?.seconds) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);

/** Every started task of the workflow's runs (continue-as-new chain included). */
export async function taskRecords(
  client: Client,
  workflowId: string,
): Promise<{ tasks: TaskRecord[]; childIds: string[]; histories: proto.temporal.api.history.v1.IHistory[] }> {
  const tasks: TaskRecord[] = [];
  const childIds: string[] = [];
  const histories: proto.temporal.api.history.v1.IHistory[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId && histories.length < 50) {
    const history: proto.temporal.api.history.v1.IHistory = await client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    histories.unshift(history);
    const events: HistoryEvent[] = history.events ?? [];
    const scheduled = scheduledActivities(events);
    const closed = outcomes(events);
    for (const event of events) {
      const started = event.activityTaskStartedEventAttributes;
      if (started) {
        const activity = scheduled.get(String(started.scheduledEventId));
        tasks.push({
          workflowId,
          kind: 'activity',
          name: activity?.name ?? '?',
          taskQueue: activity?.taskQueue,
          identity: started.identity ?? '',
          atMs: eventTimeMs(event),
          attempt: started.attempt ?? 1,
          outcome: closed.get(String(event.eventId)) ?? 'open',
        });
      }
      const workflowTask = event.workflowTaskStartedEventAttributes;
      if (workflowTask)
        tasks.push({
          workflowId,
          kind: 'workflow-task',
          name: 'workflow task',
          identity: workflowTask.identity ?? '',
          atMs: eventTimeMs(event),
          outcome: closed.get(String(event.eventId)) ?? 'open',
        });
      const childId = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (childId && !childIds.includes(childId)) childIds.push(childId);
    }
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return { tasks, childIds, histories };
}

/** The tree under `rootId` (root first), from the children each history started. */
export async function treeTasks(
  client: Client,
  rootId: string,
): Promise<{
  agentIds: string[];
  tasks: TaskRecord[];
  histories: { workflowId: string; history: proto.temporal.api.history.v1.IHistory }[];
}> {
  const agentIds: string[] = [];
  const tasks: TaskRecord[] = [];
  const histories: { workflowId: string; history: proto.temporal.api.history.v1.IHistory }[] = [];
  const queue = [rootId];
  while (queue.length > 0) {
    const agentId = queue.shift()!;
    if (agentIds.includes(agentId)) continue;
    agentIds.push(agentId);
    const records = await taskRecords(client, agentId);
    tasks.push(...records.tasks);
    histories.push(...records.histories.map((history) => ({ workflowId: agentId, history })));
    queue.push(...records.childIds);
  }
  return { agentIds, tasks, histories };
}

const workspaceNames = new Set<string>(workspaceActivityNames);

/** Problems with where a tree placed on `workerId` ran its work: every workspace activity on that worker's queue and process. */
export function placementProblems(tasks: TaskRecord[], taskQueue: string, workerId: string): string[] {
  const problems: string[] = [];
  const ownQueue = `${taskQueue}@${workerId}`;
  for (const task of tasks.filter((candidate) => candidate.kind === 'activity')) {
    if (workspaceNames.has(task.name)) {
      if (task.taskQueue !== ownQueue)
        problems.push(`${task.workflowId} ${task.name} scheduled on ${task.taskQueue}, not ${ownQueue}`);
      if (!task.identity.startsWith(`${workerId} `))
        problems.push(`${task.workflowId} ${task.name} ran on "${task.identity}", not ${workerId}`);
    } else if (task.taskQueue !== taskQueue) {
      problems.push(`${task.workflowId} ${task.name} scheduled on ${task.taskQueue}, not the shared ${taskQueue}`);
    }
  }
  if (!tasks.some((task) => task.kind === 'activity' && workspaceNames.has(task.name)))
    problems.push('no workspace activity ran at all');
  return problems;
}
