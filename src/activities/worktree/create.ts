/** The `createWorktree` activity: a new branch and worktree for one agent, idempotent across retries. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { SimpleGit } from 'simple-git';
import { ErrorType } from '../../shared/protocol/errors';
import { defaultWorktreeDir, type CreateWorktreeInput, type WorktreeInfo } from '../../shared/workspace/worktree';
import { prepareBaseDir } from './base-dir';
import { ensureExcluded, excludePattern } from './exclude';
import { gitFailure, notAGitRepository, worktreeFailure } from '../../worktree/failures';
import { branchExists, changedFiles, gitAt, headCommit } from '../../worktree/git';
import { candidateName } from './names';
import { ownerToken, readMarker, writeMarker, type WorktreeMarker } from './ownership';
import { locateRepository, realDirectory, type Repository } from '../../worktree/repository';
import { withRepositoryLock } from '../../worktree/repository-lock';
import { listWorktrees, type RegisteredWorktree } from '../../worktree/worktree-list';

/** Enough for any realistic number of leftovers; past it something else is wrong. */
const maxNameAttempts = 100;

interface Placement {
  repository: Repository;
  /** The parent's cwd, real path. */
  cwd: string;
  baseCommit: string;
  baseDir: string;
}

function describeWorktree(
  placement: Placement,
  worktreePath: string,
  branch: string,
  baseCommit: string,
): WorktreeInfo {
  const { toplevel } = placement.repository;
  return {
    repoRoot: toplevel,
    path: worktreePath,
    branch,
    baseCommit,
    cwd: path.join(worktreePath, path.relative(toplevel, placement.cwd)),
    mapping: { from: toplevel, to: worktreePath },
  };
}

/** The worktree's marker if this run owns it; an untouched one without a marker (crash after `add`) is claimed. */
async function ownedMarker(
  worktreePath: string,
  owner: string,
  placement: Placement,
  agentId: string,
): Promise<WorktreeMarker | undefined> {
  const marker = await readMarker(worktreePath);
  if (marker) return marker.owner === owner ? marker : undefined;
  const head = await headCommit(gitAt(worktreePath)).catch(() => undefined);
  if (head !== placement.baseCommit || (await changedFiles(worktreePath)).length > 0) return undefined;
  const claimed = { owner, agentId, baseCommit: placement.baseCommit };
  await writeMarker(worktreePath, claimed);
  return claimed;
}

async function pathExists(target: string): Promise<boolean> {
  return fs.lstat(target).then(
    () => true,
    () => false,
  );
}

async function addWorktree(
  git: SimpleGit,
  worktreePath: string,
  branch: string,
  placement: Placement,
  agentId: string,
): Promise<void> {
  try {
    // Locked while the agent runs, so `git worktree prune` and `subagents worktrees --prune` leave it alone.
    await git.raw([
      'worktree',
      'add',
      '--lock',
      '--reason',
      `subagent ${agentId} running`,
      '-b',
      branch,
      worktreePath,
      placement.baseCommit,
    ]);
  } catch (error) {
    throw gitFailure(
      ErrorType.WorktreeCreateFailed,
      `git worktree add ${worktreePath} on new branch ${branch} failed`,
      error,
    );
  }
}

async function placeWorktree(input: CreateWorktreeInput, placement: Placement): Promise<WorktreeInfo> {
  const git = gitAt(placement.repository.toplevel);
  const owner = ownerToken(input.agentId);
  const registered: RegisteredWorktree[] = await listWorktrees(git);
  for (let attempt = 1; attempt <= maxNameAttempts; attempt += 1) {
    const { branch, directory } = candidateName(input.agentId, attempt);
    const worktreePath = path.join(placement.baseDir, directory);
    const existing = registered.find((worktree) => worktree.path === worktreePath);
    if (existing) {
      const marker =
        existing.branch === branch && (await pathExists(worktreePath))
          ? await ownedMarker(worktreePath, owner, placement, input.agentId)
          : undefined;
      if (marker) return describeWorktree(placement, worktreePath, branch, marker.baseCommit);
      continue;
    }
    if ((await branchExists(git, branch)) || (await pathExists(worktreePath))) continue;
    await addWorktree(git, worktreePath, branch, placement, input.agentId);
    await writeMarker(worktreePath, { owner, agentId: input.agentId, baseCommit: placement.baseCommit });
    return describeWorktree(placement, worktreePath, branch, placement.baseCommit);
  }
  throw worktreeFailure(
    ErrorType.WorktreeCreateFailed,
    `no free worktree name for agent ${input.agentId} after ${maxNameAttempts} tries in ${placement.baseDir}. ` +
      'Remove old subagent worktrees (subagents worktrees --prune).',
  );
}

/** Creates (or, on a retry, finds) the worktree of one agent on a new branch from the parent checkout's HEAD. */
export async function createWorktree(input: CreateWorktreeInput): Promise<WorktreeInfo> {
  const cwd = await realDirectory(input.cwd);
  const repository = cwd ? await locateRepository(cwd) : undefined;
  if (!cwd || !repository) throw notAGitRepository(input.cwd);
  const baseCommit = await headCommit(gitAt(repository.toplevel));
  if (!baseCommit) {
    throw worktreeFailure(
      ErrorType.WorktreeCreateFailed,
      `the repository at ${repository.toplevel} has no commits yet, so there is no HEAD to branch a worktree from. ` +
        'Make a first commit, or run without isolation.',
    );
  }
  const baseDir = input.baseDir
    ? path.resolve(cwd, input.baseDir)
    : path.join(repository.mainRoot ?? repository.toplevel, defaultWorktreeDir);
  return withRepositoryLock(repository.commonDir, async () => {
    const realBaseDir = await prepareBaseDir(baseDir);
    const pattern = excludePattern(repository, realBaseDir);
    if (pattern) await ensureExcluded(repository, pattern);
    try {
      const info = await placeWorktree(input, { repository, cwd, baseCommit, baseDir: realBaseDir });
      // The parent's cwd may be a directory git does not track (empty or untracked): give the child the same place.
      await fs.mkdir(info.cwd, { recursive: true });
      return info;
    } catch (error) {
      if (error instanceof ApplicationFailure) throw error;
      throw gitFailure(
        ErrorType.WorktreeCreateFailed,
        `could not create a worktree for agent ${input.agentId} in ${realBaseDir}`,
        error,
      );
    }
  });
}
