/** Which git store records a directory: its own repository, or a private store for a non-git directory. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { realDirectory } from '../worktree/repository';
import { ErrorType } from '../shared/protocol/errors';
import type { TurnCheckpoint } from '../shared/workspace/checkpoints';
import { checkpointFailure, gitErrorText, gitFailure, notADirectory } from './failures';
import { findCheckout, type Checkout } from './checkout';
import { baseGitEnv, type GitContext } from './git-command';
import type { ResolvedCheckpointOptions } from './options';
import { ensurePrivateStore, measureDirectory, privateStoreDir, privateStoreLimits } from './private-store';

/** A work tree and the git directory its checkpoints go to. */
export interface CheckpointStore {
  kind: TurnCheckpoint['store'];
  /** The directory recorded or written (real path): a checkout's top level, or the non-git directory. */
  root: string;
  /** GIT_DIR for commands on `root`: the checkout's own git dir (`.git/worktrees/<name>` in a linked worktree), or the private store. */
  gitDir: string;
  /** Where refs, objects and the private indexes live: the repository's common dir, or the private store. */
  commonDir: string;
  /** The process environment without git location variables. */
  baseEnv: Record<string, string>;
}

/** A store, or why a directory gets none (for `status`). */
export type LocatedStore = { kind: 'store'; store: CheckpointStore } | { kind: 'unavailable'; reason: string };

const keptInstead = 'rewinding it restores the conversation only';

/** The real path of an absolute directory path; a relative one would resolve against the worker's own cwd. */
async function existingDirectory(what: string, directory: unknown): Promise<string> {
  if (typeof directory !== 'string' || !path.isAbsolute(directory)) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `${what} must be an absolute path, not ${JSON.stringify(directory)}.`,
    );
  }
  const real = await realDirectory(directory);
  if (!real) throw notADirectory(what, directory);
  return real;
}

async function isHomeOrRoot(root: string, homeDir: string): Promise<string | undefined> {
  if (root === path.parse(root).root) return 'the file system root';
  const home = await fs.realpath(homeDir).catch(() => path.resolve(homeDir));
  return root === home ? 'the home directory' : undefined;
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The store recording `cwd`: its checkout's repository, or (outside git) a private store within the limits.
 * With `existingOnly`, a private store is neither created nor measured (for reading and dropping).
 */
export async function locateStore(
  cwd: string,
  options: ResolvedCheckpointOptions,
  existingOnly = false,
): Promise<LocatedStore> {
  const real = await existingDirectory('the workspace', cwd);
  const baseEnv = baseGitEnv(options.env);
  let checkout: Checkout | undefined;
  try {
    checkout = await findCheckout(real, baseEnv);
  } catch (error) {
    // E.g. a repository owned by another user ("dubious ownership"): nothing to record, say why.
    return {
      kind: 'unavailable',
      reason: `git refuses ${real} (${gitErrorText(error)}): ${keptInstead}.`,
    };
  }
  const root = checkout?.toplevel ?? real;
  // A checkpoint of home or / would hash everything below it every turn (a dotfiles repository at ~ included).
  const tooWide = await isHomeOrRoot(root, options.homeDir);
  if (tooWide)
    return { kind: 'unavailable', reason: `${root} is ${tooWide}: its files are not checkpointed; ${keptInstead}.` };
  if (checkout) {
    return {
      kind: 'store',
      store: { kind: 'repository', root, gitDir: checkout.gitDir, commonDir: checkout.commonDir, baseEnv },
    };
  }
  const gitDir = privateStoreDir(root, options.env, options.homeDir);
  if (isInside(gitDir, root) || isInside(root, path.dirname(gitDir))) {
    return {
      kind: 'unavailable',
      reason: `${root} contains the worker's checkpoint store or lies inside it (${path.dirname(gitDir)}): ${keptInstead}.`,
    };
  }
  if (existingOnly) {
    return (await realDirectory(gitDir))
      ? { kind: 'store', store: { kind: 'private', root, gitDir, commonDir: gitDir, baseEnv } }
      : { kind: 'unavailable', reason: `${root} has no private checkpoint store.` };
  }
  // Measured at every checkpoint (it stops at a limit): a Bash command may have filled the directory since the last.
  const size = await measureDirectory(root);
  if (size.over) {
    const limit =
      size.over === 'files'
        ? `more than ${privateStoreLimits.maxFiles.toLocaleString('en-US')} files`
        : `more than ${privateStoreLimits.maxBytes / 1024 / 1024} MiB`;
    return {
      kind: 'unavailable',
      reason:
        `${root} is not in a git repository and holds ${limit} (node_modules, .git and .subagents not counted): ` +
        `its files are not checkpointed; ${keptInstead}. Make it a git repository (git init) to checkpoint it.`,
    };
  }
  await ensurePrivateStore(gitDir, baseEnv);
  return { kind: 'store', store: { kind: 'private', root, gitDir, commonDir: gitDir, baseEnv } };
}

/** The store holding a checkpoint, working on `targetRoot` (default the checkpoint's root). */
export async function storeOfCheckpoint(
  checkpoint: TurnCheckpoint,
  targetRoot: string | undefined,
  options: ResolvedCheckpointOptions,
): Promise<CheckpointStore> {
  const root = await existingDirectory(
    targetRoot === undefined ? "the checkpoint's workspace" : 'the restore target',
    targetRoot ?? checkpoint.root,
  );
  const baseEnv = baseGitEnv(options.env);
  if (checkpoint.store === 'private') {
    // Only this worker's store for that directory: a gitDir from elsewhere is never used as a git directory.
    const gitDir = privateStoreDir(checkpoint.root, options.env, options.homeDir);
    if (checkpoint.gitDir !== gitDir || !(await realDirectory(gitDir))) {
      throw checkpointFailure(
        ErrorType.CheckpointUnavailable,
        `the private checkpoint store of ${checkpoint.root} (${checkpoint.gitDir ?? 'none named'}) is not on this ` +
          `worker${checkpoint.gitDir === gitDir ? ' any more' : ` (its store for that directory is ${gitDir})`}, ` +
          `so turn ${checkpoint.turn} cannot be read.`,
      );
    }
    return { kind: 'private', root, gitDir, commonDir: gitDir, baseEnv };
  }
  if (checkpoint.store !== 'repository') {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `a checkpoint's store is "repository" or "private", not ${JSON.stringify(checkpoint.store)}.`,
    );
  }
  const checkout = await findCheckout(root, baseEnv).catch((error: unknown) => {
    throw gitFailure(`git rev-parse in ${root}`, error);
  });
  if (checkout) {
    await ensureSameRepository(checkpoint, checkout, baseEnv);
    if (checkout.toplevel !== root) {
      throw checkpointFailure(
        ErrorType.InvalidCheckpointInput,
        `${root} is inside the checkout ${checkout.toplevel}, not its top level: a checkpoint holds a whole checkout, ` +
          'so give the top level (a worktree of the same repository) as the target.',
      );
    }
    return { kind: 'repository', root, gitDir: checkout.gitDir, commonDir: checkout.commonDir, baseEnv };
  }
  // A target outside git (a fork into a plain directory): the objects are read from the checkpoint's repository.
  const source = (await realDirectory(checkpoint.root))
    ? await findCheckout(checkpoint.root, baseEnv).catch(() => undefined)
    : undefined;
  if (!source) {
    throw checkpointFailure(
      ErrorType.CheckpointUnavailable,
      `the repository of ${checkpoint.root}, which holds the checkpoint of turn ${checkpoint.turn}, is gone.`,
    );
  }
  return { kind: 'repository', root, gitDir: source.commonDir, commonDir: source.commonDir, baseEnv };
}

/** Refuses a target in another repository than the checkpoint's (its objects are not there). */
async function ensureSameRepository(
  checkpoint: TurnCheckpoint,
  target: Checkout,
  env: Record<string, string>,
): Promise<void> {
  if (target.toplevel === checkpoint.root) return;
  const source = (await realDirectory(checkpoint.root))
    ? await findCheckout(checkpoint.root, env).catch(() => undefined)
    : undefined;
  if (source && source.commonDir !== target.commonDir) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `${target.toplevel} is a checkout of another repository than ${checkpoint.root}, whose checkpoint it is: ` +
        'restore into a worktree of the same repository (git worktree add), where its objects are.',
    );
  }
}

/** git working on the store's work tree through a private index (never the checkout's own index). */
export function workTreeContext(store: CheckpointStore, indexFile: string): GitContext {
  return {
    cwd: store.root,
    env: { ...store.baseEnv, GIT_DIR: store.gitDir, GIT_WORK_TREE: store.root, GIT_INDEX_FILE: indexFile },
  };
}

/** git reading and writing objects and refs of the store only. */
export function objectContext(store: CheckpointStore): GitContext {
  return { cwd: store.commonDir, env: { ...store.baseEnv, GIT_DIR: store.gitDir } };
}
