import type { BoardTask } from '../../shared/board/board';
import type { BoardDraft } from './board-draft';

// Claims as leases (docs/board.md, Heartbeats), decided by workflow time alone so a late heartbeat cannot revive one.

/** A claim the board took back from an agent: what its owner and the owner's root are told. */
export interface LostClaim {
  taskId: string;
  subject: string;
  ownerAgentId?: string;
  rootAgentId?: string;
  /** The owner is gone (ended): only its root is told. */
  ownerEnded: boolean;
  reason: string;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10}s`;

/** Returns a claimed task to pending, records why, and reports who lost it. */
export function returnToPending(
  draft: BoardDraft,
  taskId: string,
  by: string,
  reason: string,
  ownerEnded = false,
): LostClaim | undefined {
  const current = draft.get(taskId);
  if (!current || current.status !== 'in_progress') return undefined;
  const lost: LostClaim = {
    taskId,
    subject: current.subject,
    ...(current.claim?.agentId ? { ownerAgentId: current.claim.agentId } : {}),
    ...(current.claim?.rootAgentId ? { rootAgentId: current.claim.rootAgentId } : {}),
    ownerEnded,
    reason,
  };
  const task = draft.edit(taskId);
  task.status = 'pending';
  delete task.owner;
  delete task.claim;
  delete task.startedAtMs;
  task.returnedCount += 1;
  draft.event('returned', taskId, by, reason);
  return lost;
}

/** True when an agent's claim has run out at `now`. */
export function claimExpired(task: Readonly<BoardTask>, now: number): boolean {
  return task.status === 'in_progress' && task.claim?.expiresAtMs !== undefined && task.claim.expiresAtMs <= now;
}

/** Returns every claim that has run out. */
export function expireClaims(draft: BoardDraft): LostClaim[] {
  const lost: LostClaim[] = [];
  for (const task of draft.all().filter((candidate) => claimExpired(candidate, draft.now))) {
    const silentFor = draft.now - (task.claim?.heartbeatAtMs ?? draft.now);
    const reason = `its owner ${task.owner ?? task.claim?.agentId} sent no heartbeat for ${seconds(silentFor)} (the lease is ${seconds(draft.config.leaseMs)})`;
    const returned = returnToPending(draft, task.id, 'board', reason);
    if (returned) lost.push(returned);
  }
  return lost;
}

/** Renews every live claim of an agent (after running-out claims were returned). */
export function renewClaims(draft: BoardDraft, agentId: string): void {
  for (const task of draft.all()) {
    if (task.status !== 'in_progress' || task.claim?.agentId !== agentId) continue;
    const claim = draft.edit(task.id).claim!;
    claim.heartbeatAtMs = draft.now;
    claim.expiresAtMs = draft.now + draft.config.leaseMs;
  }
}

/** An agent ended: what it still held returns to pending; its root is told. */
export function releaseOwner(draft: BoardDraft, agentId: string, reason: string): LostClaim[] {
  const held = draft.all().filter((task) => task.status === 'in_progress' && task.claim?.agentId === agentId);
  return held.flatMap(
    (task) =>
      returnToPending(
        draft,
        task.id,
        agentId,
        `its owner ${task.owner ?? agentId} ${reason} without completing it`,
        true,
      ) ?? [],
  );
}

/** When the next claim runs out, if any does. */
export function nextExpiryMs(tasks: readonly BoardTask[]): number | undefined {
  let next: number | undefined;
  for (const task of tasks) {
    const expiresAt = task.status === 'in_progress' ? task.claim?.expiresAtMs : undefined;
    if (expiresAt !== undefined && (next === undefined || expiresAt < next)) next = expiresAt;
  }
  return next;
}
