import { ApplicationFailure } from '@temporalio/common';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorType } from '../../../src/shared/protocol/errors';
import type { TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';
import { createCheckpointFixture, git, plainDirectory, userState, type CheckpointFixture } from './helpers';
import { createTestRepository } from '../worktree/helpers';

let fixture: CheckpointFixture;
beforeEach(async () => {
  fixture = await createCheckpointFixture();
});
afterEach(() => fixture.cleanup());

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

/** Turn 0: an executable script, a symlink, a nested file, an ignored file. Turn 1: all of them changed. */
async function twoTurns(): Promise<{ before: TurnCheckpoint; after: TurnCheckpoint }> {
  const { repo } = fixture.repository;
  await fixture.repository.write('.gitignore', '*.log\n');
  await fixture.repository.write('run.sh', '#!/bin/sh\necho run\n');
  await fs.chmod(path.join(repo, 'run.sh'), 0o755);
  await fs.symlink('README.md', path.join(repo, 'readme-link'));
  await fixture.repository.write('docs/guide/intro.md', '# Intro\n');
  await fixture.repository.write('debug.log', 'ignored, turn 0\n');
  const before = await fixture.record(0);
  await fs.rm(path.join(repo, 'run.sh'));
  await fs.rm(path.join(repo, 'readme-link'));
  await fixture.repository.write('readme-link', 'now a plain file\n');
  await fs.rm(path.join(repo, 'docs'), { recursive: true });
  await fixture.repository.write('src/app.ts', 'export const answer = 7;\n');
  await fixture.repository.write('generated/deep/tree/out.txt', 'made later\n');
  await fixture.repository.write('debug.log', 'ignored, turn 1\n');
  const after = await fixture.record(1, before);
  return { before, after };
}

async function expectTurnZeroFiles(root: string): Promise<void> {
  expect((await fs.stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o755);
  expect(await fs.readlink(path.join(root, 'readme-link'))).toBe('README.md');
  expect(await fs.readFile(path.join(root, 'docs/guide/intro.md'), 'utf8')).toBe('# Intro\n');
  expect(await fs.readFile(path.join(root, 'src/app.ts'), 'utf8')).toBe('export const answer = 42;\n');
  await expect(fs.lstat(path.join(root, 'generated'))).rejects.toThrow(/ENOENT/);
}

describe('restoreCheckpoint', () => {
  it('restores deletions, emptied directories, symlinks and the exec bit, leaving ignored files and the index alone', async () => {
    const { repo } = fixture.repository;
    const { before, after } = await twoTurns();
    const userBefore = await userState(repo);
    const result = await fixture.activities.restoreCheckpoint({ checkpoint: before, latest: after });
    expect(result).toEqual({
      kind: 'restored',
      changes: [
        { path: 'docs/guide/intro.md', status: 'added' },
        { path: 'generated/deep/tree/out.txt', status: 'deleted' },
        { path: 'readme-link', status: 'modified' },
        { path: 'run.sh', status: 'added' },
        { path: 'src/app.ts', status: 'modified' },
      ],
    });
    await expectTurnZeroFiles(repo);
    expect(await fixture.repository.read('debug.log')).toBe('ignored, turn 1\n');
    const userAfter = await userState(repo);
    expect({ ...userAfter, status: '' }).toEqual({ ...userBefore, status: '' });
    expect(await fixture.activities.workspaceChangesSince({ checkpoint: before })).toEqual([]);
  });

  it('keeps file names that look like shell, options or framing exactly as they are, running none of them', async () => {
    const { repo } = fixture.repository;
    const first = await fixture.record(0);
    const names = ['$(touch pwned)', '`touch pwned2`', 'a b', 'new\nline.txt', '-n', 'ask', 'ünïcödé.md', 'q\'uote"s'];
    for (const name of names) await fixture.repository.write(name, `${name}\n`);
    const second = await fixture.record(1, first);
    expect([...second.changed].sort()).toEqual([...names].sort());
    expect(await fixture.activities.workspaceChangesSince({ checkpoint: first })).toHaveLength(names.length);
    const result = await fixture.activities.restoreCheckpoint({ checkpoint: first, latest: second });
    expect(result.kind === 'restored' && result.changes.map((change) => change.path).sort()).toEqual([...names].sort());
    expect((await fs.readdir(repo)).sort()).toEqual(['.git', 'README.md', 'src']);
    await fixture.activities.restoreCheckpoint({ checkpoint: second });
    expect(await fixture.repository.read('new\nline.txt')).toBe('new\nline.txt\n');
    expect(await fs.readdir(repo)).not.toContain('pwned');
  });

  it('refuses, writing nothing, when files changed since the latest checkpoint, and lists them', async () => {
    const { repo } = fixture.repository;
    const { before, after } = await twoTurns();
    await fixture.repository.write('src/app.ts', 'export const answer = 8; // by someone else\n');
    await fixture.repository.write('theirs.txt', 'new\n');
    await fs.rm(path.join(repo, 'README.md'));
    const result = await fixture.activities.restoreCheckpoint({ checkpoint: before, latest: after });
    expect(result).toEqual({
      kind: 'refused',
      changedSince: [
        { path: 'README.md', status: 'deleted' },
        { path: 'src/app.ts', status: 'modified' },
        { path: 'theirs.txt', status: 'added' },
      ],
    });
    expect(await fixture.repository.read('src/app.ts')).toBe('export const answer = 8; // by someone else\n');
    expect(await fixture.repository.read('generated/deep/tree/out.txt')).toBe('made later\n');
    await expect(fs.lstat(path.join(repo, 'run.sh'))).rejects.toThrow(/ENOENT/);
  });

  it('is idempotent: a second run finds the workspace restored and reports no changes', async () => {
    const { before, after } = await twoTurns();
    const first = await fixture.activities.restoreCheckpoint({ checkpoint: before, latest: after });
    expect(first.kind === 'restored' && first.changes).toHaveLength(5);
    expect(await fixture.activities.restoreCheckpoint({ checkpoint: before, latest: after })).toEqual({
      kind: 'restored',
      changes: [],
    });
    expect(await fixture.activities.restoreCheckpoint({ checkpoint: before })).toEqual({
      kind: 'restored',
      changes: [],
    });
    await expectTurnZeroFiles(fixture.repository.repo);
  });

  it('finishes a restore a crash interrupted (files already holding the checkpoint are not "changed since")', async () => {
    const { repo } = fixture.repository;
    const { before, after } = await twoTurns();
    // What a worker killed half-way through git read-tree -u leaves: some files written, others not.
    await fixture.repository.write('src/app.ts', 'export const answer = 42;\n');
    await fs.rm(path.join(repo, 'generated'), { recursive: true });
    const result = await fixture.activities.restoreCheckpoint({ checkpoint: before, latest: after });
    expect(result).toEqual({
      kind: 'restored',
      changes: [
        { path: 'docs/guide/intro.md', status: 'added' },
        { path: 'readme-link', status: 'modified' },
        { path: 'run.sh', status: 'added' },
      ],
    });
    await expectTurnZeroFiles(repo);
  });

  it("restores into another worktree of the same repository (a fork's), leaving the source checkout alone", async () => {
    const { repo, root } = fixture.repository;
    const { before } = await twoTurns();
    const sourceBefore = await userState(repo);
    const fork = path.join(root, 'fork');
    git(repo, 'worktree', 'add', '-q', '--detach', fork, 'HEAD');
    const result = await fixture.activities.restoreCheckpoint({ checkpoint: before, targetRoot: fork });
    expect(result.kind).toBe('restored');
    await expectTurnZeroFiles(fork);
    await expect(fs.lstat(path.join(fork, 'debug.log'))).rejects.toThrow(/ENOENT/);
    expect(await fixture.activities.workspaceChangesSince({ checkpoint: before, root: fork })).toEqual([]);
    expect(await userState(repo)).toEqual(sourceBefore);
    expect(git(fork, 'status', '--porcelain').trim().split('\n').sort()).toEqual([
      '?? .gitignore',
      '?? docs/',
      '?? readme-link',
      '?? run.sh',
    ]);
  });

  it('refuses a target that is not a checkout top level, or in another repository, and one that is not a directory', async () => {
    const { before } = await twoTurns();
    const inside = await failureOf(
      fixture.activities.restoreCheckpoint({
        checkpoint: before,
        targetRoot: path.join(fixture.repository.repo, 'src'),
      }),
    );
    expect(inside.type).toBe(ErrorType.InvalidCheckpointInput);
    expect(inside.message).toContain('not its top level');
    const other = await createTestRepository();
    try {
      const elsewhere = await failureOf(
        fixture.activities.restoreCheckpoint({ checkpoint: before, targetRoot: other.repo }),
      );
      expect(elsewhere.type).toBe(ErrorType.InvalidCheckpointInput);
      expect(elsewhere.message).toContain('another repository');
      expect(await other.read('src/app.ts')).toBe('export const answer = 42;\n');
    } finally {
      await other.cleanup();
    }
    const missing = await failureOf(
      fixture.activities.restoreCheckpoint({
        checkpoint: before,
        targetRoot: path.join(fixture.repository.root, 'nope'),
      }),
    );
    expect(missing.type).toBe(ErrorType.NotADirectory);
  });

  it('restores into a plain directory outside git, reading the objects from the checkpoint’s repository', async () => {
    const { before } = await twoTurns();
    const target = await plainDirectory();
    try {
      expect((await fixture.activities.restoreCheckpoint({ checkpoint: before, targetRoot: target })).kind).toBe(
        'restored',
      );
      await expectTurnZeroFiles(target);
      await expect(fs.lstat(path.join(target, '.git'))).rejects.toThrow(/ENOENT/);
    } finally {
      await fs.rm(target, { recursive: true, force: true });
    }
  });

  it('says a checkpoint retention dropped is gone and how to keep more', async () => {
    const { repo } = fixture.repository;
    const first = await fixture.record(0);
    let previous = first;
    for (let turn = 1; turn <= 3; turn += 1) {
      await fixture.repository.write('counter.txt', `${turn}\n`);
      fixture.clock.ms += 1000;
      const result = await fixture.activities.checkpointWorkspace({
        agentId: 'agent-1',
        cwd: repo,
        turn,
        previous,
        retention: { keep: 2, maxAgeDays: 30 },
      });
      if (result.kind !== 'recorded') throw new Error(result.kind);
      previous = result.checkpoint;
    }
    const failure = await failureOf(fixture.activities.restoreCheckpoint({ checkpoint: first }));
    expect(failure.type).toBe(ErrorType.CheckpointUnavailable);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(
      'the checkpoint of turn 0 (refs/subagents/checkpoints/agent-1/000000) was dropped',
    );
    expect(failure.message).toContain('SUBAGENTS_CHECKPOINT_KEEP');
    expect(await fixture.repository.read('counter.txt')).toBe('3\n');
    // Its objects are still there until git gc, but a dropped checkpoint is not restored, and a pruned tree not compared.
    await fixture.activities.dropCheckpoints({ root: repo, agentId: 'agent-1' });
    expect((await failureOf(fixture.activities.restoreCheckpoint({ checkpoint: previous }))).type).toBe(
      ErrorType.CheckpointUnavailable,
    );
    const pruned = { ...first, tree: '0123456789012345678901234567890123456789' };
    expect((await failureOf(fixture.activities.diffCheckpoints({ a: pruned, b: previous }))).message).toContain(
      'was dropped',
    );
  });

  it('refuses a checkpoint whose ref or tree is not one the store recorded', async () => {
    const { before } = await twoTurns();
    for (const forged of [
      { ...before, ref: 'refs/heads/main' },
      { ...before, ref: 'refs/subagents/checkpoints/../x/000001' },
      { ...before, tree: 'HEAD; rm -rf /' },
    ]) {
      expect((await failureOf(fixture.activities.restoreCheckpoint({ checkpoint: forged }))).type).toBe(
        ErrorType.InvalidCheckpointInput,
      );
    }
  });
});
