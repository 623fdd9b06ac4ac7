import { describe, expect, it } from 'vitest';
import type { BoardActor, BoardState } from '../../src/shared/board/board';
import { BoardDraft, emptyBoard } from '../../src/workflows/board/board-draft';
import { expireClaims, nextExpiryMs, releaseOwner, renewClaims } from '../../src/workflows/board/board-leases';
import { createTask, updateTask } from '../../src/workflows/board/board-tasks';

const config = { boardId: 'board:name:team', name: 'team', leaseMs: 3_000 };
const agent = (id: string, rootAgentId: string): BoardActor => ({ kind: 'agent', id, rootAgentId });

/** Two tasks claimed at t=0 by agents of two different trees. */
function claimedBoard(): BoardState {
  let state = emptyBoard(config);
  for (const subject of ['a', 'b']) {
    const created = createTask(state, { actor: agent('r1', 'r1'), subject, description: '' }, 0);
    if (!created.ok) throw new Error(created.error);
    state = created.state;
  }
  for (const [taskId, owner] of [
    ['1', agent('r1.1', 'r1')],
    ['2', agent('r2.1', 'r2')],
  ] as const) {
    const claimed = updateTask(state, { actor: owner, taskId, status: 'in_progress' }, 0);
    if (!claimed.ok) throw new Error(claimed.error);
    state = claimed.state;
  }
  return state;
}

/** Runs one lease step on a draft and returns the new state and the lost claims. */
function step(state: BoardState, now: number, body: (draft: BoardDraft) => ReturnType<typeof expireClaims>) {
  const draft = new BoardDraft(state, now);
  const lost = body(draft);
  return { state: draft.finish(), lost };
}

describe('claim leases', () => {
  it('runs out exactly at heartbeat + lease, and the next expiry is the earliest claim', () => {
    const state = claimedBoard();
    expect(nextExpiryMs(state.tasks)).toBe(3_000);
    expect(step(state, 2_999, expireClaims).lost).toEqual([]);
    const expired = step(state, 3_000, expireClaims);
    expect(expired.lost.map((lost) => [lost.taskId, lost.ownerAgentId, lost.rootAgentId])).toEqual([
      ['1', 'r1.1', 'r1'],
      ['2', 'r2.1', 'r2'],
    ]);
    expect(expired.state.tasks.every((task) => task.status === 'pending' && task.claim === undefined)).toBe(true);
    expect(expired.state.events.filter((event) => event.kind === 'returned')).toHaveLength(2);
    expect(nextExpiryMs(expired.state.tasks)).toBeUndefined();
  });

  it('is renewed by heartbeats of its owner only', () => {
    const renewed = step(claimedBoard(), 2_000, (draft) => {
      renewClaims(draft, 'r1.1');
      return [];
    }).state;
    const later = step(renewed, 3_500, expireClaims);
    expect(later.lost.map((lost) => lost.taskId)).toEqual(['2']);
    expect(later.state.tasks[0]).toMatchObject({
      status: 'in_progress',
      claim: { heartbeatAtMs: 2_000, expiresAtMs: 5_000 },
    });
    expect(nextExpiryMs(later.state.tasks)).toBe(5_000);
  });

  it('returns what an ended owner held at once, for its root only', () => {
    const ended = step(claimedBoard(), 500, (draft) => releaseOwner(draft, 'r2.1', 'ended (failed)'));
    expect(ended.lost).toEqual([
      {
        taskId: '2',
        subject: 'b',
        ownerAgentId: 'r2.1',
        rootAgentId: 'r2',
        ownerEnded: true,
        reason: 'its owner r2.1 ended (failed) without completing it',
      },
    ]);
    expect(ended.state.tasks.map((task) => task.status)).toEqual(['in_progress', 'pending']);
    expect(step(ended.state, 600, (draft) => releaseOwner(draft, 'r2.1', 'ended')).lost).toEqual([]);
  });
});
