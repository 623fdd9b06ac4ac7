/** Worktrees made by WorktreeCreate hooks: real hook processes, the choice their answers make, and the worker's check of the directory. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { runHookProcess } from '../../../src/activities/hooks/run-hook';
import { adoptHookWorktree, checkHookWorktree } from '../../../src/activities/worktree/hook-worktree';
import { combineVerdicts, interpretHookRun } from '../../../src/shared/policy/hook-outcome';
import { interpretHttpAnswer } from '../../../src/shared/policy/hook-answers';
import { hookWorktreeChoice, hookWorktreePathProblem } from '../../../src/shared/workspace/hook-worktree';
import { worktreeSlug } from '../../../src/shared/workspace/worktree';
import { createTestRepository, type TestRepository } from './helpers';

let repository: TestRepository;
let outside: string;

beforeAll(async () => {
  repository = await createTestRepository();
  outside = path.join(repository.root, 'elsewhere');
  await fs.mkdir(outside);
});
afterAll(async () => repository.cleanup());

/** Runs `commands` as the WorktreeCreate hooks of agent `a1` (in the repository, as the agent's cwd) and chooses. */
async function choose(...commands: Array<string | { command: string; timeoutMs: number }>) {
  const verdicts = await Promise.all(
    commands.map(async (entry) => {
      const { command, timeoutMs } = typeof entry === 'string' ? { command: entry, timeoutMs: 10_000 } : entry;
      const run = await runHookProcess({
        event: 'WorktreeCreate',
        command,
        timeoutMs,
        cwd: repository.repo,
        projectDir: repository.repo,
        payload: { hook_event_name: 'WorktreeCreate', name: 'a1' },
        // The test's directories lie beside the repository: the hook may write there.
        sandbox: { filesystem: { allowWrite: [repository.root] } },
      });
      return interpretHookRun('WorktreeCreate', command, run);
    }),
  );
  return hookWorktreeChoice('a1', combineVerdicts(verdicts));
}

/** The worker's check of a chosen path, as the agent would get it: a worktree, or the refusal's message. */
async function adopt(printed: string) {
  try {
    return await adoptHookWorktree({ cwd: repository.repo, workspaceRoot: repository.repo, printed, hook: 'the-hook' });
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).nonRetryable).toBe(true);
    return (error as ApplicationFailure).message;
  }
}

/** Nothing of the runtime's is left: no git worktree, no branch but main, the main checkout clean. */
async function expectNothingLeft() {
  expect(await repository.worktreePaths()).toEqual([repository.repo]);
  expect(await repository.branches()).toEqual(['main']);
  expect(await repository.status()).toBe('');
}

describe('WorktreeCreate hooks that fail', () => {
  it.each([
    ['a relative path', 'echo some/dir', /"some\/dir" is not an absolute path/],
    ['the root', 'echo /', /"\/" is the file system's root/],
    ['a root in disguise', 'echo /tmp/../..', /is the file system's root/],
    ['two lines', 'printf "/tmp\\n/var\\n"', /printed more than one line/],
    ['a newline in the middle of a path', `printf '%s' "${'$'}(printf '/tmp/a\\nb')"`, /more than one line/],
    ['nothing', 'true', /it printed no path/],
    ['exit 1', 'echo /tmp; echo broken >&2; exit 1', /failed with exit code 1: broken/],
    ['exit 2', 'echo /tmp; echo refused >&2; exit 2', /exit code 2: refused/],
    ['a timeout', { command: 'sleep 30; echo /tmp', timeoutMs: 300 }, /timed out/],
  ] as const)(
    '%s fails the agent with an error naming the hook and the fix',
    async (_, hook, why) => {
      const choice = await choose(hook);
      expect(choice.type).toBe('failed');
      const error = choice.type === 'failed' ? choice.error : '';
      expect(error).toMatch(/^WorktreeCreateFailed: agent a1 got no worktree/);
      expect(error).toMatch(why);
      expect(error).toContain(typeof hook === 'string' ? hook : hook.command);
      expect(error).toContain('Fix the hook, or remove it to let the runtime make a git worktree');
      await expectNothingLeft();
    },
    30_000,
  );

  it('one failing hook among several fails it; hooks that disagree on the path fail it', async () => {
    expect(await choose(`echo ${outside}`, 'exit 1')).toMatchObject({ type: 'failed' });
    const disagreeing = await choose(`echo ${outside}`, `echo ${repository.root}`);
    expect(disagreeing).toMatchObject({ type: 'failed', error: expect.stringContaining('gave different paths') });
    // Hooks that print nothing beside the one that makes it are fine, and the same path twice is one path.
    expect(await choose(`echo ${outside}`, `echo ${outside}`)).toMatchObject({ type: 'path', path: outside });
  });

  it('a path the worker cannot use is refused there: a file, a missing directory, the home, a link to the root', async () => {
    const file = await repository.write('notes.txt', 'x');
    const choice = await choose(`echo ${file}`);
    expect(choice).toMatchObject({ type: 'path', path: file });
    expect(await adopt(file)).toMatch(
      /^WorktreeCreateFailed: the WorktreeCreate hook the-hook gave no usable path: .* is not a directory/,
    );
    expect(await adopt(path.join(outside, 'missing'))).toMatch(/does not exist on this worker \(ENOENT\)/);
    expect(await adopt(os.homedir())).toMatch(/is the home directory itself/);
    const rootLink = path.join(repository.root, 'root-link');
    await fs.symlink('/', rootLink);
    expect(await adopt(rootLink)).toMatch(/is the file system's root/);
    expect(await adopt('relative')).toMatch(/is not an absolute path/);
    await fs.rm(file);
    await expectNothingLeft();
  });
});

describe('WorktreeCreate hooks that work', () => {
  it('a directory the hook made outside the repository becomes the agent worktree: cwd and root, no branch', async () => {
    const made = path.join(outside, 'made-by-hook');
    const choice = await choose(`mkdir -p ${made} && echo "  ${made}  "`);
    expect(choice).toEqual({ type: 'path', path: made, hook: `mkdir -p ${made} && echo "  ${made}  "` });
    expect(await adopt(made)).toEqual({
      repoRoot: repository.repo,
      path: made,
      branch: '',
      baseCommit: '',
      cwd: made,
      mapping: { from: repository.repo, to: made },
      madeBy: 'hook',
    });
    await expectNothingLeft();
  });

  it('a path with spaces and $(…) is a plain path: nothing in it runs', async () => {
    const odd = path.join(outside, 'with spaces $(touch PWNED) `touch PWNED2`');
    await fs.mkdir(odd);
    await fs.writeFile(path.join(outside, 'path.txt'), `${odd}\n`);
    const choice = await choose(`cat ${path.join(outside, 'path.txt')}`);
    expect(choice).toMatchObject({ type: 'path', path: odd });
    expect(await adopt(odd)).toMatchObject({ path: odd, cwd: odd, madeBy: 'hook' });
    for (const place of [repository.repo, outside, odd])
      expect((await fs.readdir(place)).filter((name) => name.startsWith('PWNED'))).toEqual([]);
  });

  it('a JSON answer gives hookSpecificOutput.worktreePath (what an http hook answers)', async () => {
    const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: 'WorktreeCreate', worktreePath: outside } });
    expect(await choose(`echo '${answer}'`)).toMatchObject({ type: 'path', path: outside });
  });

  it("an http hook's answer: worktreePath of a 2xx JSON body; a non-2xx or no connection fails", () => {
    const answer = (outcome: Parameters<typeof interpretHttpAnswer>[2]) =>
      hookWorktreeChoice(
        'a1',
        combineVerdicts([interpretHttpAnswer('WorktreeCreate', 'http https://vcs.example', outcome)]),
      );
    const body = JSON.stringify({ hookSpecificOutput: { hookEventName: 'WorktreeCreate', worktreePath: outside } });
    expect(answer({ type: 'response', status: 200, body })).toMatchObject({ type: 'path', path: outside });
    expect(answer({ type: 'response', status: 200, body: '{"hookSpecificOutput":{}}' })).toMatchObject({
      type: 'failed',
      error: expect.stringContaining('no WorktreeCreate hook gave a path'),
    });
    expect(answer({ type: 'response', status: 503, body })).toMatchObject({
      type: 'failed',
      error: expect.stringContaining("http https://vcs.example: the hook's URL answered HTTP 503"),
    });
    expect(answer({ type: 'failed', reason: 'connection refused' })).toMatchObject({
      type: 'failed',
      error: expect.stringContaining('http https://vcs.example: connection refused'),
    });
  });

  it('a link to a directory is adopted at its real path', async () => {
    const link = path.join(repository.root, 'link-to-elsewhere');
    await fs.symlink(outside, link);
    expect(await checkHookWorktree(link)).toEqual({ path: outside });
  });
});

describe('hookWorktreePathProblem and worktreeSlug', () => {
  it('judges the text alone', () => {
    expect(hookWorktreePathProblem('/a/b')).toBeUndefined();
    expect(hookWorktreePathProblem('/a/../b/.')).toBeUndefined();
    expect(hookWorktreePathProblem('//')).toMatch(/root/);
    expect(hookWorktreePathProblem('/a\0b')).toMatch(/NUL/);
    expect(hookWorktreePathProblem('/a\rb')).toMatch(/more than one line/);
    expect(hookWorktreePathProblem('~/x')).toMatch(/not an absolute path/);
    expect(hookWorktreePathProblem('')).toMatch(/no path/);
  });
  it('the slug is the agent id made safe, as git worktrees name their branch', () => {
    expect(worktreeSlug('team/lead one..x')).toBe('team-lead-one-x');
    expect(worktreeSlug('///')).toBe('agent');
  });
});
