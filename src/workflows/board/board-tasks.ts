import type {
  BoardActor,
  BoardChangeResult,
  BoardState,
  BoardTask,
  CreateTaskRequest,
  ReleaseTaskRequest,
  UpdateTaskRequest,
} from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { addDependency, detachTask, removeDependency } from './board-dependencies';
import { actorLabel, BoardDraft, heldBy, holdsClaim } from './board-draft';
import { expireClaims, renewClaims, returnToPending, type LostClaim } from './board-leases';
import { assignTask, moveTask } from './board-status';

/** The board's changes as pure functions of (state, request, time), applied completely or not at all. */
export type BoardOutcome =
  { ok: true; state: BoardState; result: BoardChangeResult; lost: LostClaim[] } | { ok: false; error: string };

interface Applied {
  taskId: string;
  changed: string[];
  statusChange?: BoardChangeResult['statusChange'];
}

function change(
  state: BoardState,
  actor: BoardActor,
  now: number,
  body: (draft: BoardDraft, lost: LostClaim[]) => Applied | string,
): BoardOutcome {
  const draft = new BoardDraft(state, now);
  const lost = expireClaims(draft);
  if (actor.kind === 'agent') renewClaims(draft, actor.id);
  const applied = body(draft, lost);
  if (typeof applied === 'string') return { ok: false, error: applied };
  const next = draft.finish();
  const task = next.tasks.find((candidate) => candidate.id === applied.taskId);
  return {
    ok: true,
    state: next,
    lost,
    result: {
      taskId: applied.taskId,
      ...(task ? { task } : {}),
      changed: applied.changed,
      ...(applied.statusChange ? { statusChange: applied.statusChange } : {}),
      held: actor.kind === 'agent' ? heldBy(next.tasks, actor.id) : [],
      leaseMs: next.config.leaseMs,
    },
  };
}

const notFound = (taskId: string): string =>
  errorText(ErrorType.TaskNotFound, `task #${taskId} does not exist on this board. TaskList shows its tasks.`);

/** TaskCreate: a new pending task, optionally waiting for existing tasks. */
export function createTask(state: BoardState, request: CreateTaskRequest, now: number): BoardOutcome {
  return change(state, request.actor, now, (draft) => {
    const earlier = request.requestId ? draft.taskOfRequest(request.requestId) : undefined;
    if (earlier) return { taskId: earlier, changed: [] };
    if (draft.taskCount >= boardLimits.maxTasks) {
      return errorText(
        ErrorType.BoardLimitReached,
        `the board holds ${boardLimits.maxTasks} tasks, its limit. Delete tasks that are done (TaskUpdate status "deleted"), or use another board.`,
      );
    }
    const missing = (request.blockedBy ?? []).filter((id) => !draft.get(id));
    if (missing.length > 0)
      return errorText(
        ErrorType.TaskNotFound,
        `blockedBy names ${missing.map((id) => `#${id}`).join(', ')}, which do not exist on this board.`,
      );
    const label = actorLabel(request.actor);
    const task: BoardTask = {
      id: draft.takeId(),
      subject: request.subject,
      description: request.description,
      ...(request.activeForm ? { activeForm: request.activeForm } : {}),
      status: 'pending',
      blockedBy: [],
      blocks: [],
      ...(request.metadata ? { metadata: request.metadata } : {}),
      createdBy: label,
      createdAtMs: now,
      updatedAtMs: now,
      returnedCount: 0,
    };
    draft.add(task);
    for (const blockerId of request.blockedBy ?? []) {
      const refusal = addDependency(draft, blockerId, task.id);
      if (refusal) return refusal;
    }
    draft.event('created', task.id, label, request.subject);
    if (request.requestId) draft.rememberRequest(request.requestId, task.id);
    return { taskId: task.id, changed: ['created'] };
  });
}

/** Merges metadata keys; a null value deletes the key. */
function mergeMetadata(
  current: Record<string, unknown> | undefined,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** Subject, description, activeForm, metadata and note: only while nobody else holds the task. */
function editFields(draft: BoardDraft, request: UpdateTaskRequest, changed: string[]): string | undefined {
  const { taskId, actor } = request;
  const wants = (['subject', 'description', 'activeForm', 'metadata'] as const).filter(
    (key) => request[key] !== undefined,
  );
  // completed and blocked take the note as their result or reason (board-status.ts).
  const noteOnly = request.note !== undefined && request.status !== 'completed' && request.status !== 'blocked';
  if (wants.length === 0 && !noteOnly) return undefined;
  const task = draft.get(taskId)!;
  if (task.status === 'completed' && actor.kind === 'agent') {
    return errorText(
      ErrorType.TaskCompleted,
      `task #${taskId} was completed by ${task.completedBy ?? 'someone'}; completed tasks are not changed. Create a new task for follow-up work.`,
    );
  }
  if (task.status === 'in_progress' && !holdsClaim(task, actor) && actor.kind === 'agent') {
    return errorText(
      ErrorType.TaskClaimed,
      `task #${taskId} is in progress by ${task.owner ?? 'another owner'}; only its owner changes it now.`,
    );
  }
  const edited = draft.edit(taskId);
  if (request.subject !== undefined) edited.subject = request.subject;
  if (request.description !== undefined) edited.description = request.description;
  if (request.activeForm !== undefined) edited.activeForm = request.activeForm;
  if (noteOnly) edited.note = request.note;
  if (request.metadata !== undefined) {
    const merged = mergeMetadata(edited.metadata, request.metadata);
    const size = JSON.stringify(merged).length;
    if (size > boardLimits.maxMetadataChars)
      return errorText(
        ErrorType.BoardLimitReached,
        `the merged metadata would be ${size} characters of JSON; the limit is ${boardLimits.maxMetadataChars}.`,
      );
    edited.metadata = merged;
  }
  changed.push(...wants, ...(noteOnly ? ['note'] : []));
  draft.event('edited', taskId, actorLabel(actor), changed.join(', '));
  return undefined;
}

function editDependencies(draft: BoardDraft, request: UpdateTaskRequest, changed: string[]): string | undefined {
  const { taskId } = request;
  for (const blockerId of request.removeBlockedBy ?? []) removeDependency(draft, blockerId, taskId);
  for (const blockerId of request.addBlockedBy ?? []) {
    const refusal = addDependency(draft, blockerId, taskId);
    if (refusal) return refusal;
  }
  for (const blockedId of request.addBlocks ?? []) {
    const refusal = addDependency(draft, taskId, blockedId);
    if (refusal) return refusal;
  }
  if (request.removeBlockedBy?.length || request.addBlockedBy?.length) changed.push('blockedBy');
  if (request.addBlocks?.length) changed.push('blocks');
  return undefined;
}

/** `status: "deleted"`: the task and every dependency on it go. */
function deleteTask(draft: BoardDraft, request: UpdateTaskRequest, lost: LostClaim[]): string | undefined {
  const { taskId, actor } = request;
  const task = draft.get(taskId)!;
  if (task.status === 'in_progress' && !holdsClaim(task, actor)) {
    if (actor.kind === 'agent')
      return errorText(
        ErrorType.TaskClaimed,
        `task #${taskId} is in progress by ${task.owner ?? 'another owner'}; only its owner deletes it.`,
      );
    const returned = returnToPending(draft, taskId, actorLabel(actor), `${actorLabel(actor)} deleted it`);
    if (returned?.ownerAgentId) lost.push(returned);
  }
  detachTask(draft, taskId);
  draft.remove(taskId);
  draft.event('deleted', taskId, actorLabel(actor), task.subject);
  return undefined;
}

/** TaskUpdate: any combination of field edits, dependencies, status and owner, all or nothing. */
export function updateTask(state: BoardState, request: UpdateTaskRequest, now: number): BoardOutcome {
  return change(state, request.actor, now, (draft, lost) => {
    const { taskId, actor } = request;
    const current = draft.get(taskId);
    if (!current) return notFound(taskId);
    // A copy: the draft edits its task in place once copied (renewing the caller's claim already did).
    const before = { ...current };
    if (request.status === 'deleted') {
      const refusal = deleteTask(draft, request, lost);
      return refusal ?? { taskId, changed: ['deleted'], statusChange: { from: before.status, to: 'deleted' } };
    }
    const changed: string[] = [];
    const refusal =
      editFields(draft, request, changed) ??
      editDependencies(draft, request, changed) ??
      (request.status !== undefined
        ? moveTask(draft, taskId, request.status, actor, { owner: request.owner, note: request.note }, lost)
        : undefined) ??
      (request.owner !== undefined && request.status !== 'in_progress'
        ? assignTask(draft, taskId, request.owner, actor)
        : undefined);
    if (refusal) return refusal;
    const after = draft.get(taskId)!;
    if (after.status !== before.status) changed.push('status');
    if (after.owner !== before.owner && !changed.includes('owner')) changed.push('owner');
    if ((request.status === 'completed' || request.status === 'blocked') && after.note !== before.note)
      changed.push('note');
    return {
      taskId,
      changed,
      ...(after.status !== before.status ? { statusChange: { from: before.status, to: after.status } } : {}),
    };
  });
}

/** A person returns an in-progress task to pending, whoever holds it (`subagents board release`). */
export function releaseTask(state: BoardState, request: ReleaseTaskRequest, now: number): BoardOutcome {
  return change(state, request.actor, now, (draft, lost) => {
    const task = draft.get(request.taskId);
    if (!task) return notFound(request.taskId);
    if (task.status !== 'in_progress') {
      return errorText(
        ErrorType.TaskNotClaimed,
        `task #${task.id} is ${task.status}, not in progress: there is no claim to release.`,
      );
    }
    const label = actorLabel(request.actor);
    const returned = returnToPending(
      draft,
      task.id,
      label,
      `released by ${label}${request.reason ? `: ${request.reason}` : ''}`,
    );
    if (returned?.ownerAgentId) lost.push(returned);
    return { taskId: task.id, changed: ['status', 'owner'], statusChange: { from: 'in_progress', to: 'pending' } };
  });
}
