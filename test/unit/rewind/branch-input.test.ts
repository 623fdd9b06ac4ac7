import { describe, expect, it } from 'vitest';
import { branchInput, branchRefusal, type BranchOptions } from '../../../src/shared/rewind/branch-input';
import { boundaries, checkpoint, finishedSource, sourceInput, t0, worktree, zeroUsage } from './fixtures';

const nowMs = t0 + 3_600_000;
// Turns 0..5: a baseline on 1, checkpoints on 3 and 5, a loop-turn counter that differs from the turn number.
const turns = boundaries(5, { 1: checkpoint(1, { baseline: true }), 3: checkpoint(3), 5: checkpoint(5) }).map(
  (found) => ({ ...found, loopTurn: found.turn + 10 }),
);
const source = finishedSource(turns);
const at = (turn: number) => turns[turn]!;
const fork = (options: Partial<BranchOptions> = {}): BranchOptions => ({
  agentId: 'fork-abc',
  reason: 'fork',
  nowMs,
  ...options,
});
const rewind = (options: Partial<BranchOptions> = {}): BranchOptions => ({
  agentId: sourceInput.agentId,
  reason: 'rewind',
  nowMs,
  ...options,
});

describe('branchInput for a fork', () => {
  it('is a new agent with its own id, a description naming the source and turn, and no name', () => {
    const input = branchInput(source, at(3), fork());
    expect(input.agentId).toBe('fork-abc');
    expect(input.description).toBe(`fork of ${sourceInput.agentId} at turn 3`);
    expect(input.name).toBeUndefined();
  });

  it("keeps the source's request prefix: model, rendered prompt, tools, type, limits, place in the tree", () => {
    const input = branchInput(source, at(3), fork());
    for (const key of [
      'agentType',
      'model',
      'definitionPrompt',
      'renderedSystemPrompt',
      'tools',
      'permissionMode',
      'maxTurns',
      'limits',
      'parentAgentId',
      'rootAgentId',
      'depth',
      'workspaceRoot',
    ] as const)
      expect(input[key], key).toEqual(sourceInput[key]);
  });

  it("zeroes its counters and usage and starts its clock now, at the boundary's loop turn", () => {
    const { carried } = branchInput(source, at(3), fork());
    expect(carried).toBeDefined();
    expect(carried!.usage).toEqual(zeroUsage);
    expect(carried!.descendantUsage).toEqual(zeroUsage);
    expect(carried!.toolUses).toBe(0);
    expect(carried!.spawnCount).toBe(0);
    expect(carried!.startedAtMs).toBe(nowMs);
    expect(carried!.turn).toBe(13);
    expect(carried!.messages).toEqual([]);
  });

  it('copies what the prefix depends on (replacements, MCP tools, roster, settings) and nothing it learned', () => {
    const { carried } = branchInput(source, at(3), fork());
    expect(carried!.contentReplacements).toEqual(source.carried.contentReplacements);
    // A copy: the fork's replacements can grow without touching the source's.
    expect(carried!.contentReplacements).not.toBe(source.carried.contentReplacements);
    expect(carried!.extraTools).toBe(source.carried.extraTools);
    expect(carried!.spawnContext).toBe(source.carried.spawnContext);
    expect(carried!.memoryDir).toBe(source.carried.memoryDir);
    expect(carried!.contextOverheadTokens).toBe(2100);
    expect(carried!.readFileState).toEqual({});
    for (const key of ['todos', 'permissionDenials', 'worktree', 'awaiting', 'turns'] as const)
      expect(carried, key).not.toHaveProperty(key);
  });

  it('leaves out the optional copies the source did not have', () => {
    const bare = finishedSource(turns, {
      carried: { ...source.carried, extraTools: undefined, spawnContext: undefined, memoryDir: undefined },
    });
    const { carried } = branchInput(bare, at(3), fork());
    expect(carried).not.toHaveProperty('extraTools');
    expect(carried).not.toHaveProperty('spawnContext');
    expect(carried).not.toHaveProperty('memoryDir');
  });

  it("drops what belongs to the source's runs: its fork origin, inbox, board claims, run count and tree books", () => {
    const input = branchInput(source, at(3), fork());
    expect(input.forkFrom).toBeUndefined();
    expect(input.carriedInbox).toBeUndefined();
    expect(input.carriedBoard).toBeUndefined();
    expect(input.continuedRuns).toBeUndefined();
    expect(input.carriedTree).toBeUndefined();
  });

  it('records where it branched from: source, run, turn, message count and hash', () => {
    const { branchFrom } = branchInput(source, at(3), fork());
    expect(branchFrom).toEqual({
      agentId: sourceInput.agentId,
      runId: 'run-1',
      turn: 3,
      messageCount: at(3).messageCount,
      hash: at(3).hash,
      reason: 'fork',
    });
  });

  it("takes the new prompt as the branch's continuation and as its prompt; without one it keeps the source's", () => {
    const prompted = branchInput(source, at(3), fork({ prompt: 'Try the other approach' }));
    expect(prompted.branchFrom?.prompt).toBe('Try the other approach');
    expect(prompted.prompt).toBe('Try the other approach');
    const plain = branchInput(source, at(3), fork());
    expect(plain.branchFrom).not.toHaveProperty('prompt');
    expect(plain.prompt).toBe(sourceInput.prompt);
    // An empty prompt is a prompt: the caller decides whether it may be given.
    expect(branchInput(source, at(3), fork({ prompt: '' })).branchFrom?.prompt).toBe('');
  });

  it('works where the source started by default, in --cwd when given, and is not isolated without --worktree', () => {
    const plain = branchInput(source, at(3), fork());
    expect(plain.cwd).toBe(sourceInput.cwd);
    expect(plain.isolation).toBeUndefined();
    const moved = branchInput(source, at(3), fork({ cwd: '/elsewhere' }));
    expect(moved.cwd).toBe('/elsewhere');
    expect(moved.isolation).toBeUndefined();
    expect(moved.branchFrom).not.toHaveProperty('restore');
  });

  it("gets its own worktree restored to the turn's checkpoint with --worktree, without a latest (nothing to protect)", () => {
    const input = branchInput(source, at(4), fork({ worktree: true }));
    expect(input.isolation).toBe('worktree');
    expect(input.branchFrom?.restore).toEqual({ checkpoint: at(3).checkpoint });
  });

  it('restores nothing without --worktree, even when the turn has a checkpoint', () => {
    expect(branchInput(source, at(5), fork()).branchFrom).not.toHaveProperty('restore');
  });

  it('takes the later baseline for a turn before the first write', () => {
    expect(branchInput(source, at(0), fork({ worktree: true })).branchFrom?.restore).toEqual({
      checkpoint: at(1).checkpoint,
    });
  });

  it('sets no restore when no checkpoint stands for the turn (the caller refuses first)', () => {
    const readOnly = finishedSource(boundaries(3));
    const input = branchInput(readOnly, readOnly.carried.turns![2]!, fork({ worktree: true }));
    expect(input.isolation).toBe('worktree');
    expect(input.branchFrom).not.toHaveProperty('restore');
  });
});

describe('branchInput for a rewind of a finished agent', () => {
  it("is the same agent, name, prompt and cwd, at the boundary's loop turn, with an empty conversation to fetch", () => {
    const input = branchInput(source, at(3), rewind());
    expect(input.agentId).toBe(sourceInput.agentId);
    expect(input.name).toBe(sourceInput.name);
    expect(input.description).toBe(sourceInput.description);
    expect(input.prompt).toBe(sourceInput.prompt);
    expect(input.cwd).toBe(sourceInput.cwd);
    expect(input.isolation).toBe(sourceInput.isolation);
    expect(input.carried!.turn).toBe(13);
    expect(input.carried!.messages).toEqual([]);
    expect(input.carried!.awaiting).toBeUndefined();
  });

  it('keeps what it carried: usage (tokens spent stay spent), read files, todos, boundaries, spawn count', () => {
    const { carried } = branchInput(source, at(3), rewind());
    const { messages: _messages, turn: _turn, awaiting: _awaiting, ...kept } = source.carried;
    expect(carried).toMatchObject(kept);
    expect(carried!.usage).toEqual(source.carried.usage);
    expect(carried!.spawnCount).toBe(3);
    expect(carried!.turns).toEqual(turns);
  });

  it("carries the root's tree books into the new run and drops the old run's inbox, board and run count", () => {
    const input = branchInput(source, at(3), rewind());
    expect(input.carriedTree).toBe(source.tree);
    expect(input.carriedInbox).toBeUndefined();
    expect(input.carriedBoard).toBeUndefined();
    expect(input.continuedRuns).toBeUndefined();
    expect(input.forkFrom).toBeUndefined();
  });

  it('records the branch as a rewind, with the prompt when given', () => {
    expect(branchInput(source, at(2), rewind({ prompt: 'Again, carefully' })).branchFrom).toEqual({
      agentId: sourceInput.agentId,
      runId: 'run-1',
      turn: 2,
      messageCount: at(2).messageCount,
      hash: at(2).hash,
      reason: 'rewind',
      prompt: 'Again, carefully',
    });
  });

  it("with --files restores the turn's checkpoint, guarded by the agent's latest one", () => {
    expect(branchInput(source, at(4), rewind({ files: true })).branchFrom?.restore).toEqual({
      checkpoint: at(3).checkpoint,
      latest: at(5).checkpoint,
    });
    expect(branchInput(source, at(4), rewind()).branchFrom).not.toHaveProperty('restore');
  });

  it('keeps its worktree when the result says it was kept, and when the result says nothing of one', () => {
    const kept = finishedSource(turns, {
      result: resultWith({
        kept: true,
        path: worktree.path,
        branch: worktree.branch,
        changedFiles: ['a'],
        commits: [],
      }),
    });
    expect(branchInput(kept, at(3), rewind()).carried!.worktree).toEqual(worktree);
    expect(branchInput(source, at(3), rewind()).carried!.worktree).toEqual(worktree);
  });

  it('drops its worktree when the result says it was removed', () => {
    const removed = finishedSource(turns, {
      result: resultWith({ kept: false, path: worktree.path, branch: worktree.branch, changedFiles: [], commits: [] }),
    });
    expect(branchInput(removed, at(3), rewind()).carried).not.toHaveProperty('worktree');
  });
});

describe('branchRefusal', () => {
  it('accepts a branch of the conversation only, at any boundary', () => {
    const readOnly = finishedSource(boundaries(3));
    for (const found of readOnly.carried.turns!) {
      expect(branchRefusal(readOnly, found, fork())).toBeUndefined();
      expect(branchRefusal(readOnly, found, rewind())).toBeUndefined();
    }
  });

  it('refuses --worktree and --files without a checkpoint at or before the turn, saying how to branch anyway', () => {
    const readOnly = finishedSource(boundaries(3));
    const found = readOnly.carried.turns![2]!;
    expect(branchRefusal(readOnly, found, fork({ worktree: true }))).toBe(
      'agent agent-1.2 has no checkpoint of its files at or before turn 2; fork without --worktree to branch the conversation only.',
    );
    expect(branchRefusal(readOnly, found, rewind({ files: true }))).toBe(
      'agent agent-1.2 has no checkpoint of its files at or before turn 2; rewind without --files to branch the conversation only.',
    );
  });

  it('refuses for an agent that carried no boundaries at all', () => {
    const bare = finishedSource([], { carried: { ...finishedSource([]).carried, turns: undefined } });
    expect(branchRefusal(bare, turns[0]!, fork({ worktree: true }))).toMatch(/no checkpoint of its files/);
  });

  it('accepts --worktree and --files when a checkpoint (or a later baseline) stands for the turn', () => {
    expect(branchRefusal(source, at(4), fork({ worktree: true }))).toBeUndefined();
    expect(branchRefusal(source, at(0), rewind({ files: true }))).toBeUndefined();
  });

  it('refuses --cwd with --worktree', () => {
    expect(branchRefusal(source, at(3), fork({ worktree: true, cwd: '/elsewhere' }))).toBe(
      'give --cwd or --worktree, not both.',
    );
    expect(branchRefusal(source, at(3), fork({ cwd: '/elsewhere' }))).toBeUndefined();
  });
});

function resultWith(outcome: NonNullable<NonNullable<ReturnType<typeof finishedSource>['result']>['worktree']>) {
  return {
    agentId: sourceInput.agentId,
    agentType: sourceInput.agentType,
    status: 'completed' as const,
    finalText: 'done',
    usage: zeroUsage,
    toolUses: 7,
    turns: 9,
    durationMs: 1000,
    model: sourceInput.model,
    treeUsage: zeroUsage,
    worktree: outcome,
  };
}
