import type { BoardActor, BoardTask, TaskStatus } from '../../shared/board/board';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { actorLabel, holdsClaim, namesActor, openBlockers, type BoardDraft } from './board-draft';
import { returnToPending, type LostClaim } from './board-leases';

// Status moves of one task (docs/board.md, Claims); each returns a refusal, or undefined when made.

/** Claims a person takes over from an agent: dropped, and reported to the agent and its root. */
function takeOver(
  draft: BoardDraft,
  task: Readonly<BoardTask>,
  actor: BoardActor,
  what: string,
  lost: LostClaim[],
): void {
  if (task.status !== 'in_progress' || holdsClaim(task, actor)) return;
  const returned = returnToPending(draft, task.id, actorLabel(actor), `${actorLabel(actor)} ${what}`);
  if (returned?.ownerAgentId) lost.push(returned);
}

function statusList(draft: BoardDraft, ids: readonly string[]): string {
  return ids.map((id) => `#${id} (${draft.get(id)?.status ?? 'missing'})`).join(', ');
}

/** Why this actor cannot start or finish the task now, if it cannot. */
function notReady(draft: BoardDraft, task: Readonly<BoardTask>, actor: BoardActor, verb: string): string | undefined {
  const person = actor.kind === 'person';
  if (task.status === 'blocked' && !person) {
    return errorText(
      ErrorType.TaskNotReady,
      `task #${task.id} is blocked${task.note ? ` (${task.note})` : ''}. Set it to pending first, once that is resolved.`,
    );
  }
  const open = openBlockers(draft.all(), task);
  if (open.length > 0) {
    return errorText(
      ErrorType.TaskNotReady,
      `task #${task.id} waits for ${statusList(draft, open)}; it can be ${verb} once they are completed.`,
    );
  }
  if (task.status === 'pending' && task.owner && !namesActor(task.owner, actor) && !person) {
    return errorText(
      ErrorType.TaskAssigned,
      `task #${task.id} is assigned to ${task.owner}; only ${task.owner} starts it (or someone assigns it to you with owner).`,
    );
  }
  return undefined;
}

function claimedByOther(task: Readonly<BoardTask>, verb: string): string {
  return errorText(
    ErrorType.TaskClaimed,
    `task #${task.id} is in progress by ${task.owner ?? 'another owner'}; only its owner ${verb} it. Pick another task (TaskList shows which are free).`,
  );
}

function completedAlready(task: Readonly<BoardTask>): string {
  return errorText(
    ErrorType.TaskCompleted,
    `task #${task.id} was completed by ${task.completedBy ?? 'someone'}; completed tasks are not changed. Create a new task for follow-up work.`,
  );
}

/** status → in_progress: the actor claims the task (for itself; a person may name the owner). */
function claim(
  draft: BoardDraft,
  task: Readonly<BoardTask>,
  actor: BoardActor,
  owner: string | undefined,
  lost: LostClaim[],
): string | undefined {
  const person = actor.kind === 'person';
  if (task.status === 'completed') return completedAlready(task);
  if (holdsClaim(task, actor)) return undefined;
  if (!person && owner !== undefined && owner !== '' && !namesActor(owner, actor)) {
    return errorText(
      ErrorType.TaskAssigned,
      `you can only claim a task for yourself: leave owner out (or give your own name, ${actorLabel(actor)}). To hand task #${task.id} to another agent, set owner with status "pending".`,
    );
  }
  if (task.status === 'in_progress' && !person) return claimedByOther(task, 'works on');
  const refusal = notReady(draft, task, actor, 'claimed');
  if (refusal) return refusal;
  takeOver(draft, task, actor, 'took it over', lost);
  const edited = draft.edit(task.id);
  edited.status = 'in_progress';
  edited.startedAtMs = draft.now;
  if (person) {
    edited.owner = owner || actorLabel(actor);
    edited.claim = { sinceMs: draft.now, heartbeatAtMs: draft.now };
  } else {
    edited.owner = actorLabel(actor);
    edited.claim = {
      agentId: actor.id,
      ...(actor.rootAgentId ? { rootAgentId: actor.rootAgentId } : {}),
      sinceMs: draft.now,
      heartbeatAtMs: draft.now,
      expiresAtMs: draft.now + draft.config.leaseMs,
    };
  }
  draft.event('claimed', task.id, edited.owner);
  return undefined;
}

/** status → completed: by its owner, or directly from pending when the actor could claim it. */
function complete(
  draft: BoardDraft,
  task: Readonly<BoardTask>,
  actor: BoardActor,
  note: string | undefined,
  lost: LostClaim[],
): string | undefined {
  const label = actorLabel(actor);
  if (task.status === 'completed')
    return task.completedBy === label || task.completedBy === actor.id ? undefined : completedAlready(task);
  const mine = holdsClaim(task, actor);
  if (task.status === 'in_progress' && !mine && actor.kind === 'agent') return claimedByOther(task, 'completes');
  if (task.status !== 'in_progress') {
    const refusal = notReady(draft, task, actor, 'completed');
    if (refusal) return refusal;
  }
  takeOver(draft, task, actor, 'completed it', lost);
  const edited = draft.edit(task.id);
  edited.status = 'completed';
  edited.owner = mine ? (edited.owner ?? label) : label;
  edited.completedBy = label;
  edited.completedAtMs = draft.now;
  edited.startedAtMs ??= draft.now;
  delete edited.claim;
  if (note !== undefined) edited.note = note;
  draft.event('completed', task.id, label, note);
  return undefined;
}

/** status → blocked: set on purpose with a reason; whoever held it lets go. */
function block(
  draft: BoardDraft,
  task: Readonly<BoardTask>,
  actor: BoardActor,
  note: string | undefined,
  lost: LostClaim[],
): string | undefined {
  if (task.status === 'completed') return completedAlready(task);
  if (task.status === 'in_progress' && !holdsClaim(task, actor) && actor.kind === 'agent')
    return claimedByOther(task, 'blocks');
  const reason = note?.trim() || (task.status === 'blocked' ? task.note : undefined);
  if (!reason) return errorText(ErrorType.InvalidBoardRequest, `say in "note" what blocks task #${task.id}.`);
  takeOver(draft, task, actor, 'marked it blocked', lost);
  const edited = draft.edit(task.id);
  edited.status = 'blocked';
  edited.note = reason;
  delete edited.owner;
  delete edited.claim;
  delete edited.startedAtMs;
  draft.event('blocked', task.id, actorLabel(actor), reason);
  return undefined;
}

/** status → pending: the owner lets go of its claim, a blocked task is unblocked, a person reopens a completed one. */
function toPending(
  draft: BoardDraft,
  task: Readonly<BoardTask>,
  actor: BoardActor,
  lost: LostClaim[],
): string | undefined {
  const label = actorLabel(actor);
  switch (task.status) {
    case 'pending':
      return undefined;
    case 'in_progress':
      if (holdsClaim(task, actor)) {
        returnToPending(draft, task.id, label, `released by its owner ${label}`);
        return undefined;
      }
      if (actor.kind === 'agent') return claimedByOther(task, 'releases');
      takeOver(draft, task, actor, 'released it', lost);
      return undefined;
    case 'blocked': {
      const edited = draft.edit(task.id);
      edited.status = 'pending';
      draft.event('unblocked', task.id, label);
      return undefined;
    }
    case 'completed': {
      if (actor.kind === 'agent') return completedAlready(task);
      const edited = draft.edit(task.id);
      edited.status = 'pending';
      delete edited.owner;
      delete edited.completedAtMs;
      delete edited.completedBy;
      delete edited.startedAtMs;
      draft.event('reopened', task.id, label);
      return undefined;
    }
  }
}

/** Moves a task to `to` for `actor`: a refusal, or undefined when done. Claims taken from other agents go into `lost`. */
export function moveTask(
  draft: BoardDraft,
  taskId: string,
  to: TaskStatus,
  actor: BoardActor,
  options: { owner?: string; note?: string },
  lost: LostClaim[],
): string | undefined {
  const task = draft.get(taskId);
  if (!task) return errorText(ErrorType.TaskNotFound, `task #${taskId} does not exist on this board.`);
  switch (to) {
    case 'in_progress':
      return claim(draft, task, actor, options.owner, lost);
    case 'completed':
      return complete(draft, task, actor, options.note, lost);
    case 'blocked':
      return block(draft, task, actor, options.note, lost);
    case 'pending':
      return toPending(draft, task, actor, lost);
  }
}

/** Assigns a task that is not in progress ('' unassigns), or confirms an in-progress task's own owner. */
export function assignTask(draft: BoardDraft, taskId: string, owner: string, actor: BoardActor): string | undefined {
  const task = draft.get(taskId)!;
  if (task.status === 'completed') return completedAlready(task);
  if (task.status === 'in_progress') {
    if (holdsClaim(task, actor) && (owner === '' ? false : namesActor(owner, actor) || owner === task.owner))
      return undefined;
    return errorText(
      ErrorType.TaskClaimed,
      `task #${taskId} is in progress by ${task.owner ?? 'its owner'}: its owner cannot change while it is claimed. Release it first (status "pending").`,
    );
  }
  if ((task.owner ?? '') === owner) return undefined;
  const edited = draft.edit(taskId);
  if (owner === '') delete edited.owner;
  else edited.owner = owner;
  draft.event('assigned', taskId, actorLabel(actor), owner === '' ? 'unassigned' : `assigned to ${owner}`);
  return undefined;
}
