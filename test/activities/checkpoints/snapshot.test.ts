import { ApplicationFailure } from '@temporalio/common';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preparePrivateIndex, privateIndexFile } from '../../../src/checkpoints/private-index';
import { ErrorType } from '../../../src/shared/protocol/errors';
import { checkpointRefPrefix } from '../../../src/shared/workspace/checkpoints';
import { bash, createCheckpointFixture, git, treeListing, userState, type CheckpointFixture } from './helpers';

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

describe('checkpointWorkspace', () => {
  it('records a first checkpoint on a private ref: a parentless commit of the workspace, compared with HEAD', async () => {
    const { repo } = fixture.repository;
    const checkpoint = await fixture.record(0);
    expect(checkpoint).toMatchObject({
      turn: 0,
      ref: `${checkpointRefPrefix}agent-1/000000`,
      root: repo,
      store: 'repository',
      changed: [],
      changedCount: 0,
      atMs: fixture.clock.ms,
    });
    expect(checkpoint.gitDir).toBeUndefined();
    expect(checkpoint.tree).toBe(git(repo, 'rev-parse', 'HEAD^{tree}').trim());
    expect(git(repo, 'rev-parse', checkpoint.ref).trim()).toBe(checkpoint.commit);
    const commit = git(repo, 'cat-file', 'commit', checkpoint.commit);
    expect(commit).not.toMatch(/^parent /m);
    expect(commit).toMatch(/^author subagents <checkpoints@subagents\.invalid> 1893456000 \+0000$/m);
    expect(commit).toContain('subagents checkpoint agent-1 turn 0');
  });

  it('reports an unchanged workspace without a ref, and lists what changed since the previous checkpoint', async () => {
    const { repo } = fixture.repository;
    const first = await fixture.record(0);
    expect(
      await fixture.activities.checkpointWorkspace({ agentId: 'agent-1', cwd: repo, turn: 1, previous: first }),
    ).toEqual({
      kind: 'unchanged',
    });
    expect(git(repo, 'for-each-ref', '--format=%(refname)', checkpointRefPrefix).trim()).toBe(first.ref);
    await fixture.repository.write('src/app.ts', 'export const answer = 43;\n');
    await fs.rm(path.join(repo, 'README.md'));
    await fixture.repository.write('src/new.ts', 'export {};\n');
    const second = await fixture.record(2, first);
    expect(second.changed).toEqual(['README.md', 'src/app.ts', 'src/new.ts']);
    expect(second.changedCount).toBe(3);
    expect(second.ref).toBe(`${checkpointRefPrefix}agent-1/000002`);
    expect(await fixture.activities.diffCheckpoints({ a: first, b: second })).toEqual([
      { path: 'README.md', status: 'deleted' },
      { path: 'src/app.ts', status: 'modified' },
      { path: 'src/new.ts', status: 'added' },
    ]);
  });

  it('lists at most 50 changed paths and counts them all', async () => {
    const first = await fixture.record(0);
    for (let index = 0; index < 60; index += 1) await fixture.repository.write(`many/file-${index}.txt`, `${index}\n`);
    const second = await fixture.record(1, first);
    expect(second.changed).toHaveLength(50);
    expect(second.changedCount).toBe(60);
  });

  it('captures untracked files and files a Bash command made, never git-ignored ones', async () => {
    const { repo } = fixture.repository;
    await fixture.repository.write('.gitignore', '*.log\ndist/\n');
    bash(
      repo,
      'echo built > built.txt && mkdir -p dist out && echo bundle > dist/app.js && echo x > debug.log && echo y > out/data.bin',
    );
    const checkpoint = await fixture.record(0);
    const paths = treeListing(repo, checkpoint.tree).map((line) => line.split(' ')[1]);
    expect(paths).toEqual(['.gitignore', 'README.md', 'built.txt', 'out/data.bin', 'src/app.ts']);
    expect(checkpoint.changed).toEqual(['.gitignore', 'built.txt', 'out/data.bin']);
  });

  it("leaves the user's index, HEAD, branches, stash, status and files as they were", async () => {
    const { repo } = fixture.repository;
    await fixture.repository.write('stashed.txt', 'stash me\n');
    git(repo, 'add', 'stashed.txt');
    git(repo, 'stash', 'push', '-m', 'user stash');
    await fixture.repository.write('staged.txt', 'staged\n');
    git(repo, 'add', 'staged.txt');
    await fixture.repository.write('src/app.ts', 'export const answer = 44;\n');
    await fixture.repository.write('untracked.txt', 'untracked\n');
    const before = await userState(repo);
    const first = await fixture.record(0);
    await fixture.repository.write('later.txt', 'later\n');
    const second = await fixture.record(1, first);
    expect(await fixture.activities.workspaceChangesSince({ checkpoint: first })).toEqual([
      { path: 'later.txt', status: 'added' },
    ]);
    await fs.rm(path.join(repo, 'later.txt'));
    expect(await userState(repo)).toEqual(before);
    expect(treeListing(repo, second.tree)).toContain('100644 staged.txt');
    expect(await fixture.repository.read('src/app.ts')).toBe('export const answer = 44;\n');
  });

  it('works without any git identity or user configuration', async () => {
    const { repo } = fixture.repository;
    git(repo, 'config', '--unset', 'user.name');
    git(repo, 'config', '--unset', 'user.email');
    const bare: NodeJS.ProcessEnv = {
      ...fixture.env,
      HOME: fixture.home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    };
    delete bare.EMAIL;
    const { createCheckpointActivities } = await import('../../../src/activities/checkpoints/index');
    const activities = createCheckpointActivities({ env: bare, homeDir: fixture.home });
    await fixture.repository.write('notes.txt', 'no identity\n');
    const result = await activities.checkpointWorkspace({ agentId: 'agent-1', cwd: repo, turn: 0 });
    expect(result.kind).toBe('recorded');
  });

  it('records a linked worktree into the shared repository: refs and the private index in the common dir', async () => {
    const { repo, root } = fixture.repository;
    const worktree = path.join(root, 'linked');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', worktree);
    await fixture.repository.write('src/feature.ts', 'export const feature = true;\n', worktree);
    const mainBefore = await userState(repo);
    const linkedBefore = await userState(worktree);
    const checkpoint = await fixture.record(3, undefined, '01JABC.2.1', path.join(worktree, 'src'));
    expect(checkpoint.root).toBe(worktree);
    expect(checkpoint.changed).toEqual(['src/feature.ts']);
    expect(git(repo, 'rev-parse', `${checkpointRefPrefix}01JABC.2.1/000003`).trim()).toBe(checkpoint.commit);
    const indexes = await fs.readdir(path.join(repo, '.git', 'subagents', 'checkpoint-index', '01JABC.2.1'));
    expect(indexes.filter((name) => /^[0-9a-f]{16}$/.test(name))).toHaveLength(1);
    expect(await userState(repo)).toEqual(mainBefore);
    expect(await userState(worktree)).toEqual(linkedBefore);
  });

  it('refuses hostile agent ids and previous trees with a clear error, before git is touched', async () => {
    const { repo } = fixture.repository;
    for (const agentId of [
      '../x',
      'a b',
      'x\n',
      'refs/heads/main',
      '',
      '.hidden',
      'x.lock',
      '-rf',
      'a..b',
      'a:b',
      'a~1',
    ]) {
      const failure = await failureOf(fixture.activities.checkpointWorkspace({ agentId, cwd: repo, turn: 0 }));
      expect(failure.type).toBe(ErrorType.InvalidCheckpointInput);
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toContain(`agent id ${JSON.stringify(agentId)} cannot name a checkpoint`);
    }
    const first = await fixture.record(0);
    for (const tree of ['--output=/tmp/pwned', 'HEAD~1', '']) {
      const previous = { ...first, tree };
      const failure = await failureOf(
        fixture.activities.checkpointWorkspace({ agentId: 'a', cwd: repo, turn: 1, previous }),
      );
      expect(failure.type).toBe(ErrorType.InvalidCheckpointInput);
    }
    await fixture.activities.dropCheckpoints({ root: repo, agentId: 'agent-1' });
    const dropped = await failureOf(fixture.activities.dropCheckpoints({ root: repo, agentId: '../x' }));
    expect(dropped.type).toBe(ErrorType.InvalidCheckpointInput);
    expect(git(repo, 'for-each-ref', 'refs/subagents')).toBe('');
    expect(await fs.readdir(path.join(repo, '.git', 'subagents', 'checkpoint-index'))).toEqual([]);
  });

  it('refuses a cwd that is not a directory and a turn that is not a turn number', async () => {
    const { repo } = fixture.repository;
    const file = await failureOf(
      fixture.activities.checkpointWorkspace({ agentId: 'a', cwd: path.join(repo, 'README.md'), turn: 0 }),
    );
    expect(file.type).toBe(ErrorType.NotADirectory);
    expect(file.message).toContain('README.md is not a directory');
    const missing = await failureOf(
      fixture.activities.checkpointWorkspace({ agentId: 'a', cwd: path.join(repo, 'gone'), turn: 0 }),
    );
    expect(missing.type).toBe(ErrorType.NotADirectory);
    const relative = await failureOf(fixture.activities.checkpointWorkspace({ agentId: 'a', cwd: 'src', turn: 0 }));
    expect(relative.type).toBe(ErrorType.InvalidCheckpointInput);
    expect(relative.message).toContain('must be an absolute path');
    for (const turn of [-1, 1.5, Number.NaN]) {
      const failure = await failureOf(fixture.activities.checkpointWorkspace({ agentId: 'a', cwd: repo, turn }));
      expect(failure.type).toBe(ErrorType.InvalidCheckpointInput);
    }
  });

  it('records nothing for the home directory or the file system root, saying what rewind keeps', async () => {
    const { createCheckpointActivities } = await import('../../../src/activities/checkpoints/index');
    const asHome = createCheckpointActivities({ env: fixture.env, homeDir: fixture.repository.repo });
    const home = await asHome.checkpointWorkspace({
      agentId: 'a',
      cwd: path.join(fixture.repository.repo, 'src'),
      turn: 0,
    });
    expect(home).toEqual({ kind: 'unavailable', reason: expect.stringContaining('is the home directory') });
    expect(home.kind === 'unavailable' && home.reason).toContain('the conversation only');
    const root = await fixture.activities.checkpointWorkspace({ agentId: 'a', cwd: '/', turn: 0 });
    expect(root).toEqual({ kind: 'unavailable', reason: expect.stringContaining('the file system root') });
    expect(git(fixture.repository.repo, 'for-each-ref', 'refs/subagents')).toBe('');
  });

  it("starts a second agent on the same checkout from a copy of the first one's index, seeing its own changes", async () => {
    const { repo } = fixture.repository;
    const parent = await fixture.record(0, undefined, 'root');
    const gitDir = path.join(repo, '.git');
    const store = { kind: 'repository' as const, root: repo, gitDir, commonDir: gitDir, baseEnv: {} };
    const seeded = await preparePrivateIndex(store, 'root.1');
    expect(await fs.readFile(seeded)).toEqual(await fs.readFile(privateIndexFile(store, 'root')));
    await fixture.repository.write('src/app.ts', 'export const answer = 41;\n');
    await fixture.repository.write('child.txt', 'made by the child\n');
    const child = await fixture.record(0, undefined, 'root.1');
    expect(child.changed).toEqual(['child.txt', 'src/app.ts']);
    expect(child.tree).not.toBe(parent.tree);
    expect(git(repo, 'ls-tree', '-r', '--name-only', child.tree).split('\n')).toContain('child.txt');
    expect(await fs.readdir(path.join(repo, '.git', 'subagents', 'checkpoint-index'))).toEqual(['root', 'root.1']);
  });

  it('notices a repository created inside the checkout after a checkpoint (a cwd that became its own repository)', async () => {
    const { repo } = fixture.repository;
    const cwd = path.join(repo, 'packages', 'tool');
    await fixture.repository.write('packages/tool/index.ts', 'export {};\n');
    const outer = await fixture.record(0, undefined, 'agent-1', cwd);
    expect(outer.root).toBe(repo);
    git(cwd, 'init', '-q');
    const inner = await fixture.record(1, outer, 'agent-1', cwd);
    expect(inner.root).toBe(cwd);
    expect(inner.changed).toEqual(['index.ts']);
    expect(git(cwd, 'for-each-ref', '--format=%(refname)', 'refs/subagents').trim()).toBe(inner.ref);
  });

  it('recovers from a stale index lock a killed worker left, and retries later on a fresh one', async () => {
    const first = await fixture.record(0);
    const indexDir = path.join(fixture.repository.repo, '.git', 'subagents', 'checkpoint-index', 'agent-1');
    const [index] = (await fs.readdir(indexDir)).filter((name) => /^[0-9a-f]{16}$/.test(name));
    const lock = path.join(indexDir, `${index}.lock`);
    await fs.writeFile(lock, '');
    const fresh = await failureOf(fixture.record(1, first));
    expect(fresh.type).toBe(ErrorType.CheckpointFailed);
    expect(fresh.nonRetryable).toBe(false);
    const longAgo = new Date(Date.now() - 5 * 60_000);
    await fs.utimes(lock, longAgo, longAgo);
    await fixture.repository.write('after-crash.txt', 'x\n');
    expect((await fixture.record(1, first)).changed).toEqual(['after-crash.txt']);
  });
});
