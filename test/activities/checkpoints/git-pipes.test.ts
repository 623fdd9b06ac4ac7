/** The store's long-lived git processes (src/checkpoints/git-pipes.ts), on a real repository. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitCommandError } from '../../../src/checkpoints/git-command';
import { applyRefTransaction, closeGitPipes, gitPipePids, writeCommitObject } from '../../../src/checkpoints/git-pipes';
import { checkpointCommitText } from '../../../src/checkpoints/snapshot';

const repo = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'git-pipes-')));
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_COMMITTER_NAME: 'subagents',
      GIT_COMMITTER_EMAIL: 'checkpoints@subagents.invalid',
      GIT_AUTHOR_NAME: 'subagents',
      GIT_AUTHOR_EMAIL: 'checkpoints@subagents.invalid',
      GIT_AUTHOR_DATE: '@1800000000 +0000',
      GIT_COMMITTER_DATE: '@1800000000 +0000',
    },
  }).trim();
git('init', '-q');
writeFileSync(path.join(repo, 'a.txt'), 'a\n');
git('add', 'a.txt');
const tree = git('write-tree');
const context = { cwd: repo, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_DIR: path.join(repo, '.git') } };
const scratch = path.join(repo, '.git', 'scratch');

afterAll(() => closeGitPipes());

describe('writeCommitObject', () => {
  it('writes the commit git commit-tree writes for the same tree, identity and time', async () => {
    const id = await writeCommitObject(context, checkpointCommitText(tree, 1_800_000_000_000, 'turn 3'), scratch);
    expect(id).toBe(git('commit-tree', '-m', 'turn 3', tree));
    expect(git('cat-file', '-t', id)).toBe('commit');
  });

  it('refuses text that is not a commit, and works again after', async () => {
    const failure = await writeCommitObject(context, 'tree nothing\n\nbroken\n', scratch).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GitCommandError);
    const id = await writeCommitObject(context, checkpointCommitText(tree, 0, 'after'), scratch);
    expect(git('cat-file', '-t', id)).toBe('commit');
  });

  it('keeps one process for many commits', async () => {
    const ids = await Promise.all(
      Array.from({ length: 10 }, (_, turn) =>
        writeCommitObject(context, checkpointCommitText(tree, 0, `turn ${turn}`), `${scratch}-${turn}`),
      ),
    );
    expect(new Set(ids).size).toBe(10);
    expect(gitPipePids().length).toBeLessThanOrEqual(2);
  });
});

describe('applyRefTransaction', () => {
  const commit = () => git('commit-tree', '-m', String(Math.random()), tree);

  it('applies updates and deletions together', async () => {
    const [one, two] = [commit(), commit()];
    await applyRefTransaction(context, `update refs/subagents/test/1 ${one}\nupdate refs/subagents/test/2 ${two}\n`);
    expect(git('rev-parse', 'refs/subagents/test/1')).toBe(one);
    await applyRefTransaction(context, `delete refs/subagents/test/1\nupdate refs/subagents/test/3 ${one}\n`);
    expect(git('for-each-ref', '--format=%(refname)', 'refs/subagents/test')).toBe(
      'refs/subagents/test/2\nrefs/subagents/test/3',
    );
  });

  it('applies nothing of a transaction that fails, says why, and works again after', async () => {
    const [one, two] = [commit(), commit()];
    await applyRefTransaction(context, `update refs/subagents/held ${one}\n`);
    // The deletion's expected value is not the ref's: the whole transaction is refused, the new ref too.
    const failure = await applyRefTransaction(
      context,
      `update refs/subagents/new ${two}\ndelete refs/subagents/held ${two}\n`,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).stderr).toMatch(/refs\/subagents\/held/);
    expect(() => git('rev-parse', '--verify', '-q', 'refs/subagents/new')).toThrow();
    await applyRefTransaction(context, `update refs/subagents/new ${two}\n`);
    expect(git('rev-parse', 'refs/subagents/new')).toBe(two);
  });

  it('reports a lock file left by a killed git as git names it (for the stale-lock recovery)', async () => {
    writeFileSync(path.join(repo, '.git', 'refs', 'subagents', 'locked.lock'), '');
    const failure = await applyRefTransaction(context, `update refs/subagents/locked ${commit()}\n`).catch(
      (error: unknown) => error,
    );
    expect((failure as GitCommandError).stderr).toMatch(/Unable to create '[^']+locked\.lock': File exists/);
  });

  it('refuses a command line that is not one, without running anything else', async () => {
    const failure = await applyRefTransaction(context, `option no-deref\n!sh -c 'touch ${repo}/pwned'\n`).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(GitCommandError);
  });

  it('applies transactions sent at once one after the other', async () => {
    const ids = Array.from({ length: 12 }, () => commit());
    await Promise.all(
      ids.map((id, index) => applyRefTransaction(context, `update refs/subagents/many/${index} ${id}\n`)),
    );
    expect(git('for-each-ref', '--format=%(objectname)', 'refs/subagents/many').split('\n').sort()).toEqual(
      [...ids].sort(),
    );
  });
});
