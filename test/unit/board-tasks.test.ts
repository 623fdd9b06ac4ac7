import { describe, expect, it } from 'vitest';
import type { BoardActor, BoardState, UpdateTaskRequest } from '../../src/shared/board/board';
import { boardLimits } from '../../src/shared/board/board-limits';
import { emptyBoard, countTasks } from '../../src/workflows/board/board-draft';
import { createTask, releaseTask, updateTask, type BoardOutcome } from '../../src/workflows/board/board-tasks';

const lease = 10_000;
const config = { boardId: 'board:tree:root', rootAgentId: 'root', leaseMs: lease };
const lead: BoardActor = { kind: 'agent', id: 'root', rootAgentId: 'root' };
const alice: BoardActor = { kind: 'agent', id: 'root.1', name: 'alice', rootAgentId: 'root' };
const bob: BoardActor = { kind: 'agent', id: 'root.2', name: 'bob', rootAgentId: 'root' };
const person: BoardActor = { kind: 'person', id: 'ops' };

function ok(outcome: BoardOutcome): Extract<BoardOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`expected the change to be accepted, got: ${outcome.error}`);
  return outcome;
}
function refused(outcome: BoardOutcome): string {
  if (outcome.ok) throw new Error('expected a refusal');
  return outcome.error;
}

/** A board with tasks #1..#n, each given `blockedBy`. */
function boardWith(...blockedBy: string[][]): BoardState {
  let state = emptyBoard(config);
  blockedBy.forEach((blockers, index) => {
    state = ok(
      createTask(state, { actor: lead, subject: `task ${index + 1}`, description: '', blockedBy: blockers }, 1_000),
    ).state;
  });
  return state;
}
const update = (state: BoardState, request: Omit<UpdateTaskRequest, 'actor'> & { actor?: BoardActor }, now = 2_000) =>
  updateTask(state, { actor: alice, ...request }, now);
const task = (state: BoardState, id: string) => state.tasks.find((candidate) => candidate.id === id)!;

describe('creating tasks', () => {
  it('numbers tasks, links dependencies both ways and counts columns', () => {
    const state = boardWith([], [], ['1', '2']);
    expect(state.tasks.map((candidate) => candidate.id)).toEqual(['1', '2', '3']);
    expect(task(state, '3').blockedBy).toEqual(['1', '2']);
    expect(task(state, '1').blocks).toEqual(['3']);
    expect(countTasks(state.tasks)).toEqual({
      pending: 3,
      ready: 2,
      waiting: 1,
      in_progress: 0,
      blocked: 0,
      completed: 0,
    });
  });

  it('refuses a dependency on a task that does not exist, and leaves the board as it was', () => {
    const state = boardWith([]);
    expect(refused(createTask(state, { actor: lead, subject: 'x', description: '', blockedBy: ['9'] }, 1))).toMatch(
      /^TaskNotFound: .*#9/,
    );
    expect(state.tasks).toHaveLength(1);
  });

  it('answers a repeated request id with the task it created, instead of a second task', () => {
    const first = ok(
      createTask(emptyBoard(config), { actor: lead, requestId: 'r/1', subject: 'once', description: '' }, 1),
    );
    const again = ok(createTask(first.state, { actor: lead, requestId: 'r/1', subject: 'once', description: '' }, 2));
    expect(again.result.taskId).toBe('1');
    expect(again.state.tasks).toHaveLength(1);
  });

  it(`refuses the ${boardLimits.maxTasks + 1}th task with the limit and what to do`, () => {
    let state = emptyBoard(config);
    for (let index = 0; index < boardLimits.maxTasks; index++)
      state = ok(createTask(state, { actor: lead, subject: `t${index}`, description: '' }, 1)).state;
    expect(refused(createTask(state, { actor: lead, subject: 'one more', description: '' }, 1))).toMatch(
      /^BoardLimitReached: .*200 tasks.*deleted/,
    );
  });
});

describe('claims', () => {
  it('lets exactly one of two agents claim a task; the other is told who has it', () => {
    const state = boardWith([]);
    const first = ok(update(state, { taskId: '1', status: 'in_progress' }));
    expect(task(first.state, '1')).toMatchObject({
      status: 'in_progress',
      owner: 'alice',
      claim: { agentId: 'root.1', expiresAtMs: 2_000 + lease },
    });
    expect(first.result.held).toEqual(['1']);
    expect(refused(update(first.state, { actor: bob, taskId: '1', status: 'in_progress' }))).toMatch(
      /^TaskClaimed: task #1 is in progress by alice/,
    );
    expect(refused(update(first.state, { actor: bob, taskId: '1', status: 'completed' }))).toMatch(/^TaskClaimed: /);
  });

  it('refuses a claim while a dependency is open, and allows it once the dependency is completed', () => {
    const state = boardWith([], ['1']);
    expect(refused(update(state, { taskId: '2', status: 'in_progress' }))).toMatch(
      /^TaskNotReady: task #2 waits for #1 \(pending\)/,
    );
    const done = ok(update(state, { actor: bob, taskId: '1', status: 'completed', note: 'built' })).state;
    expect(task(done, '1')).toMatchObject({ status: 'completed', completedBy: 'bob', note: 'built' });
    expect(task(ok(update(done, { taskId: '2', status: 'in_progress' })).state, '2').status).toBe('in_progress');
  });

  it('is idempotent for the holder and refuses claiming for someone else', () => {
    const claimed = ok(update(boardWith([]), { taskId: '1', status: 'in_progress' })).state;
    expect(ok(update(claimed, { taskId: '1', status: 'in_progress', owner: 'alice' })).result.changed).toEqual([]);
    expect(refused(update(boardWith([]), { taskId: '1', status: 'in_progress', owner: 'bob' }))).toMatch(
      /^TaskAssigned: you can only claim a task for yourself/,
    );
  });

  it('keeps an assigned task for its assignee', () => {
    const assigned = ok(update(boardWith([]), { actor: lead, taskId: '1', owner: 'bob' })).state;
    expect(task(assigned, '1').owner).toBe('bob');
    expect(refused(update(assigned, { taskId: '1', status: 'in_progress' }))).toMatch(
      /^TaskAssigned: task #1 is assigned to bob/,
    );
    expect(
      task(ok(update(assigned, { actor: bob, taskId: '1', status: 'in_progress' })).state, '1').claim?.agentId,
    ).toBe('root.2');
  });

  it('lets the holder give a task back, and refuses agents reopening completed work', () => {
    const claimed = ok(update(boardWith([]), { taskId: '1', status: 'in_progress' })).state;
    // The holder's own request renews its claim first; the answer still says what changed.
    expect(ok(update(claimed, { taskId: '1', status: 'completed', note: 'r' })).result).toMatchObject({
      changed: ['status', 'note'],
      statusChange: { from: 'in_progress', to: 'completed' },
      held: [],
    });
    const released = ok(update(claimed, { taskId: '1', status: 'pending' }));
    expect(released.result).toMatchObject({
      changed: ['status', 'owner'],
      statusChange: { from: 'in_progress', to: 'pending' },
    });
    expect(task(released.state, '1')).toMatchObject({ status: 'pending', returnedCount: 1 });
    expect(task(released.state, '1').owner).toBeUndefined();
    expect(released.result.held).toEqual([]);
    const done = ok(update(released.state, { taskId: '1', status: 'completed' })).state;
    expect(refused(update(done, { actor: bob, taskId: '1', status: 'pending' }))).toMatch(/^TaskCompleted: /);
    expect(refused(update(done, { actor: bob, taskId: '1', subject: 'changed' }))).toMatch(/^TaskCompleted: /);
    expect(ok(update(done, { taskId: '1', status: 'completed' })).result.changed).toEqual([]);
    expect(task(ok(update(done, { actor: person, taskId: '1', status: 'pending' })).state, '1').status).toBe('pending');
  });

  it('blocks with a reason only, and unblocks to pending', () => {
    const state = boardWith([]);
    expect(refused(update(state, { taskId: '1', status: 'blocked' }))).toMatch(/^InvalidBoardRequest: say in "note"/);
    const blocked = ok(update(state, { taskId: '1', status: 'blocked', note: 'needs credentials' })).state;
    expect(refused(update(blocked, { actor: bob, taskId: '1', status: 'in_progress' }))).toMatch(
      /^TaskNotReady: task #1 is blocked \(needs credentials\)/,
    );
    expect(task(ok(update(blocked, { actor: bob, taskId: '1', status: 'pending' })).state, '1').status).toBe('pending');
  });

  it('never changes the state it was given (a refused change leaves no trace)', () => {
    const state = boardWith([], ['1']);
    const before = JSON.stringify(state);
    update(state, { taskId: '1', status: 'in_progress', subject: 'renamed' });
    refused(update(state, { taskId: '2', status: 'in_progress', subject: 'renamed' }));
    expect(JSON.stringify(state)).toBe(before);
  });
});

describe('dependencies', () => {
  it('refuses a cycle and names it', () => {
    const state = boardWith([], ['1'], ['2']);
    expect(refused(update(state, { taskId: '1', addBlockedBy: ['3'] }))).toBe(
      'DependencyCycle: #1 waiting for #3 would close the cycle #1 → #2 → #3 → #1 (each blocks the next). Drop one of these dependencies.',
    );
    expect(refused(update(state, { taskId: '1', addBlocks: ['1'] }))).toMatch(
      /^DependencyCycle: task #1 cannot wait for itself/,
    );
    expect(refused(update(state, { taskId: '3', addBlocks: ['1'] }))).toMatch(/^DependencyCycle: /);
  });

  it('adds and removes dependencies symmetrically; deleting a task detaches it', () => {
    const state = boardWith([], [], []);
    const linked = ok(update(state, { taskId: '3', addBlockedBy: ['1'], actor: lead })).state;
    const both = ok(update(linked, { taskId: '2', addBlocks: ['3'], actor: lead })).state;
    expect(task(both, '3').blockedBy).toEqual(['1', '2']);
    const unlinked = ok(update(both, { taskId: '3', removeBlockedBy: ['1'], actor: lead })).state;
    expect(task(unlinked, '3').blockedBy).toEqual(['2']);
    expect(task(unlinked, '1').blocks).toEqual([]);
    const deleted = ok(update(unlinked, { taskId: '2', status: 'deleted', actor: lead }));
    expect(deleted.result.task).toBeUndefined();
    expect(task(deleted.state, '3').blockedBy).toEqual([]);
    expect(deleted.state.tasks.map((candidate) => candidate.id)).toEqual(['1', '3']);
  });
});

describe('leases', () => {
  it('returns a claim whose lease ran out, and a late heartbeat does not revive it', () => {
    const claimed = ok(update(boardWith([]), { taskId: '1', status: 'in_progress' }, 2_000)).state;
    // Bob's request comes after the lease: the claim is returned first, then his claim wins.
    const taken = ok(update(claimed, { actor: bob, taskId: '1', status: 'in_progress' }, 2_000 + lease));
    expect(taken.lost).toEqual([
      expect.objectContaining({
        taskId: '1',
        ownerAgentId: 'root.1',
        rootAgentId: 'root',
        ownerEnded: false,
        reason: expect.stringContaining('no heartbeat for 10s'),
      }),
    ]);
    expect(task(taken.state, '1')).toMatchObject({ owner: 'bob', returnedCount: 1 });
    // Alice comes back: her claim is gone.
    expect(refused(update(taken.state, { taskId: '1', status: 'completed' }, 2_000 + lease + 1))).toMatch(
      /^TaskClaimed: task #1 is in progress by bob/,
    );
  });

  it("renews the caller's own claims on every request", () => {
    const claimed = ok(update(boardWith([], [], []), { taskId: '1', status: 'in_progress' }, 2_000)).state;
    const renewed = ok(update(claimed, { taskId: '2', status: 'in_progress' }, 2_000 + lease - 1)).state;
    expect(task(renewed, '1').claim?.expiresAtMs).toBe(2_000 + lease - 1 + lease);
    expect(ok(update(renewed, { actor: bob, taskId: '3', note: 'x' }, 2_000 + lease + 5)).lost).toEqual([]);
    expect(
      ok(update(renewed, { actor: bob, taskId: '3', note: 'x' }, 2_000 + 2 * lease)).lost.map((lost) => lost.taskId),
    ).toEqual(['1', '2']);
  });

  it('lets a person take a task from an agent, and reports the lost claim', () => {
    const claimed = ok(update(boardWith([]), { taskId: '1', status: 'in_progress' })).state;
    const released = ok(releaseTask(claimed, { actor: person, taskId: '1', reason: 'stuck' }, 3_000));
    expect(released.lost[0]).toMatchObject({ taskId: '1', ownerAgentId: 'root.1', reason: 'released by ops: stuck' });
    expect(refused(releaseTask(released.state, { actor: person, taskId: '1' }, 3_000))).toMatch(/not in progress/);
    const claimedAgain = ok(update(released.state, { taskId: '1', status: 'in_progress' })).state;
    expect(ok(update(claimedAgain, { actor: person, taskId: '1', status: 'completed' })).lost).toHaveLength(1);
  });
});
