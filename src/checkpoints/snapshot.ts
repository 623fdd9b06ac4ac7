/** Recording a workspace: the whole work tree into a private index, a tree, a parentless commit on a private ref. */
import fs from 'node:fs/promises';
import path from 'node:path';
import type {
  CheckpointInput,
  CheckpointResult,
  CheckpointRetention,
  FileChange,
  TurnCheckpoint,
} from '../shared/workspace/checkpoints';
import { diffTrees, emptyTreeLike } from './compare';
import { gitFailure } from './failures';
import { recoveringStaleLocks } from './locks';
import { GitCommandError, runGit, type GitContext } from './git-command';
import { checkpointAgentName, checkpointRef, checkpointTurn } from './names';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { deleteRefsInput, expiredCheckpoints, listCheckpoints, resolveRetention } from './retention';
import { locateStore, objectContext, privateIndexFile, workTreeContext, type CheckpointStore } from './store';

/** At most this many changed paths are listed in a checkpoint (changedCount has them all). */
export const maxListedChanges = 50;

/** The identity of checkpoint commits: fixed, so recording works without any user git config. */
const identity = { name: 'subagents', email: 'checkpoints@subagents.invalid' };

/**
 * Stages the work tree into the agent's private index (`git add --all`: untracked files in, ignored files out) and
 * writes its tree. The index stays between calls, so git rehashes only files whose stat data changed.
 */
export async function snapshotTree(store: CheckpointStore, agentId: string): Promise<string> {
  const indexFile = privateIndexFile(store, agentId);
  await fs.mkdir(path.dirname(indexFile), { recursive: true });
  const context = workTreeContext(store, indexFile);
  await runGit(context, ['-c', 'advice.addEmbeddedRepo=false', 'add', '--all']);
  return (await runGit(context, ['write-tree'])).trim();
}

function commitTree(context: GitContext, tree: string, message: string, nowMs: number): Promise<string> {
  const date = `@${Math.floor(nowMs / 1000)} +0000`;
  const env = {
    ...context.env,
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
    GIT_COMMITTER_DATE: date,
  };
  return runGit({ ...context, env }, ['commit-tree', '--no-gpg-sign', tree, '-m', message]).then((out) => out.trim());
}

/**
 * What changed since the previous checkpoint. The first checkpoint (or one whose previous tree is not in this
 * store) is compared with the checkout's HEAD, so a clean checkout lists nothing; in a private store or a repository
 * without commits, with the empty tree (every file is new).
 */
async function changesSincePrevious(
  context: GitContext,
  store: CheckpointStore,
  previous: CheckpointInput['previous'],
  tree: string,
): Promise<FileChange[]> {
  const bases = [
    ...(previous && previous.root === store.root && previous.store === store.kind ? [previous.tree] : []),
    ...(store.kind === 'repository' ? ['HEAD'] : []),
  ];
  for (const base of bases) {
    try {
      return await diffTrees(context, base, tree);
    } catch (error) {
      // A pruned previous tree or an unborn HEAD: fall back to the next base.
      if (!(error instanceof GitCommandError && /bad (object|revision)/.test(error.stderr))) throw error;
    }
  }
  return diffTrees(context, emptyTreeLike(tree), tree);
}

interface Recording {
  agentId: string;
  turn: number;
  previous: CheckpointInput['previous'];
  retention: CheckpointRetention;
  atMs: () => number;
}

/** Snapshot, compare with the previous tree, commit, and move the ref (retention's deletions in the same transaction). */
async function recordIn(store: CheckpointStore, recording: Recording): Promise<CheckpointResult> {
  const { agentId, turn, previous } = recording;
  const objects = objectContext(store);
  // Listed while git stages the files: it is off the critical path, and cheap to throw away when nothing changed.
  const listing = listCheckpoints(objects, agentId);
  listing.catch(() => {});
  const tree = await snapshotTree(store, agentId);
  // Equal trees are equal files, whichever store the previous one was recorded in.
  if (previous?.tree === tree) return { kind: 'unchanged' };
  const atMs = recording.atMs();
  const ref = checkpointRef(agentId, turn);
  const [commit, changes, stored] = await Promise.all([
    commitTree(objects, tree, `subagents checkpoint ${agentId} turn ${turn}`, atMs),
    changesSincePrevious(objects, store, previous, tree),
    listing,
  ]);
  const expired = expiredCheckpoints(stored, recording.retention, atMs, ref).map((old) => old.ref);
  await runGit(objects, ['update-ref', '--stdin'], `update ${ref} ${commit}\n${deleteRefsInput(expired)}`);
  const checkpoint: TurnCheckpoint = {
    turn,
    commit,
    tree,
    ref,
    root: store.root,
    store: store.kind,
    ...(store.kind === 'private' ? { gitDir: store.gitDir } : {}),
    changed: changes.slice(0, maxListedChanges).map((change) => change.path),
    changedCount: changes.length,
    atMs,
  };
  return { kind: 'recorded', checkpoint };
}

/** Records the agent's workspace at a turn boundary if it changed since `previous`, then applies retention. */
export async function recordCheckpoint(input: CheckpointInput, options?: CheckpointOptions): Promise<CheckpointResult> {
  const resolved = resolveCheckpointOptions(options);
  const recording: Recording = {
    agentId: checkpointAgentName(input.agentId),
    turn: checkpointTurn(input.turn),
    previous: input.previous,
    retention: resolveRetention(input.retention, resolved.env),
    atMs: resolved.now,
  };
  const located = await locateStore(input.cwd, resolved);
  if (located.kind === 'unavailable') return located;
  const { store } = located;
  try {
    return await recoveringStaleLocks(store.commonDir, () => recordIn(store, recording));
  } catch (error) {
    throw gitFailure(
      `could not record a checkpoint of ${store.root} for agent ${recording.agentId} at turn ${recording.turn}`,
      error,
    );
  }
}
