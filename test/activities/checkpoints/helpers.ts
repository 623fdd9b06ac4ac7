import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createCheckpointActivities } from '../../../src/activities/checkpoints/index';
import type { CheckpointResult, TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';
import { createTestRepository, type TestRepository } from '../worktree/helpers';

/** A real repository, a temporary home (SUBAGENTS_HOME inside) and the activities reading them, on a settable clock. */
export interface CheckpointFixture {
  repository: TestRepository;
  home: string;
  subagentsHome: string;
  env: NodeJS.ProcessEnv;
  clock: { ms: number };
  activities: ReturnType<typeof createCheckpointActivities>;
  /** Records and expects a checkpoint. */
  record(turn: number, previous?: TurnCheckpoint, agentId?: string, cwd?: string): Promise<TurnCheckpoint>;
  cleanup(): Promise<void>;
}

export async function createCheckpointFixture(extraEnv: NodeJS.ProcessEnv = {}): Promise<CheckpointFixture> {
  const repository = await createTestRepository();
  const home = path.join(repository.root, 'home');
  const subagentsHome = path.join(home, '.subagents');
  await fs.mkdir(home);
  const env: NodeJS.ProcessEnv = { ...process.env, SUBAGENTS_HOME: subagentsHome };
  delete env.SUBAGENTS_CHECKPOINT_KEEP;
  delete env.SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS;
  Object.assign(env, extraEnv);
  const clock = { ms: Date.UTC(2030, 0, 1) };
  const activities = createCheckpointActivities({ env, homeDir: home, now: () => clock.ms });
  return {
    repository,
    home,
    subagentsHome,
    env,
    clock,
    activities,
    async record(turn, previous, agentId = 'agent-1', cwd = repository.repo) {
      const result = await activities.checkpointWorkspace({ agentId, cwd, turn, ...(previous ? { previous } : {}) });
      return expectRecorded(result);
    },
    cleanup: () => repository.cleanup(),
  };
}

export function expectRecorded(result: CheckpointResult): TurnCheckpoint {
  if (result.kind !== 'recorded') throw new Error(`expected a recorded checkpoint, got ${JSON.stringify(result)}`);
  return result.checkpoint;
}

/** git's output in a directory, without optional locks (a `git status` here must not refresh the user's index). */
export function git(directory: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: directory,
    encoding: 'utf8',
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
  });
}

/** Everything of the user's a checkpoint must leave alone: index bytes, HEAD, branches, stash, status. */
export async function userState(checkout: string): Promise<Record<string, string>> {
  const gitDir = git(checkout, 'rev-parse', '--absolute-git-dir').trim();
  const index = await fs.readFile(path.join(gitDir, 'index')).catch(() => Buffer.alloc(0));
  return {
    index: createHash('sha256').update(index).digest('hex'),
    head: git(checkout, 'rev-parse', 'HEAD'),
    symbolicHead: git(checkout, 'symbolic-ref', '-q', 'HEAD'),
    branches: git(checkout, 'for-each-ref', 'refs/heads', 'refs/tags'),
    stash: git(checkout, 'stash', 'list'),
    status: git(checkout, 'status', '--porcelain=v1', '--untracked-files=all'),
  };
}

/** Paths and modes of a checkpoint's tree. */
export function treeListing(directory: string, tree: string): string[] {
  return git(directory, 'ls-tree', '-r', '--format=%(objectmode) %(path)', tree)
    .split('\n')
    .filter((line) => line !== '');
}

/** Runs a shell command in a directory, as the Bash tool would. */
export function bash(directory: string, command: string): void {
  execFileSync('bash', ['-c', command], { cwd: directory });
}

/** A temporary directory outside any repository. */
export async function plainDirectory(prefix = 'checkpoint-plain-'): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}
