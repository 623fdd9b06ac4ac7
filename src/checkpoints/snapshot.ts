/** Recording a workspace: the whole work tree into a private index, a tree, a parentless commit on a private ref. */
import fs from 'node:fs/promises';
import type {
  CheckpointInput,
  CheckpointResult,
  CheckpointRetention,
  TurnCheckpoint,
} from '../shared/workspace/checkpoints';
import { ErrorType } from '../shared/protocol/errors';
import { parseNameStatus } from './compare';
import { checkpointFailure, gitFailure } from './failures';
import { indexDiffCommand, runScript, stageLine } from './git-script';
import { applyRefTransaction, writeCommitObject } from './git-pipes';
import { sweepOtherAgents } from './inventory';
import { recoveringStaleLocks } from './locks';
import { agentRefPrefix, checkpointAgentName, checkpointRef, checkpointTurn, isObjectId } from './names';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { preparePrivateIndex } from './private-index';
import {
  checkpointListingFormat,
  deleteRefsInput,
  expiredCheckpoints,
  parseCheckpointListing,
  resolveRetention,
} from './retention';
import { locateStore, objectContext, workTreeContext, type CheckpointStore } from './store';

/** At most this many changed paths are listed in a checkpoint (changedCount has them all). */
export const maxListedChanges = 50;

/** The identity of checkpoint commits: fixed, so recording works without any user git config. */
const identity = { name: 'subagents', email: 'checkpoints@subagents.invalid' };

/**
 * $1 the previous tree (or empty), $2 the agent's ref prefix. The agent's refs are listed while git stages the files,
 * into a file beside the private index (sh has no other place to keep NULs), and what changed is compared while git
 * writes the tree (the staged index against $3, the previous tree when recorded in this store, else $4, HEAD in a
 * repository, else the empty tree; a pruned tree or an unborn HEAD fails over to the next). The commit and its ref
 * are written by the caller (./git-pipes.ts).
 */
const recordScript = `git for-each-ref --format='${checkpointListingFormat}' "$2" >"$GIT_INDEX_FILE.refs" &
listing=$!
${stageLine}
{
  { [ -n "$3" ] && ${indexDiffCommand} "$3" -- 2>/dev/null; } ||
    { [ -n "$4" ] && ${indexDiffCommand} "$4" -- 2>/dev/null; } ||
    ${indexDiffCommand} "$(git hash-object -t tree /dev/null)" --
} >"$GIT_INDEX_FILE.changes" &
comparing=$!
tree=$(git write-tree)
section tree; printf '%s' "$tree"
wait "$listing"
wait "$comparing"
if [ "$tree" = "$1" ]; then exit 0; fi
section compared
`;

/** A checkpoint's commit object: its tree, the fixed identity at the turn's time, a message naming it. */
export function checkpointCommitText(tree: string, atMs: number, message: string): string {
  const person = `${identity.name} <${identity.email}> ${Math.floor(atMs / 1000)} +0000`;
  return `tree ${tree}\nauthor ${person}\ncommitter ${person}\n\n${message}\n`;
}

/** The turn's snapshot, checked against `previous` and recorded when it differs. */
interface Recording {
  agentId: string;
  turn: number;
  previous: CheckpointInput['previous'];
  retention: CheckpointRetention;
  atMs: number;
}

async function recordIn(store: CheckpointStore, recording: Recording): Promise<CheckpointResult> {
  const { agentId, turn, previous, atMs } = recording;
  const ref = checkpointRef(agentId, turn);
  const indexFile = await preparePrivateIndex(store, agentId);
  // The previous tree is compared with only when it was recorded here (another store may not have its objects).
  const previousHere = previous && previous.root === store.root && previous.store === store.kind;
  const sections = await runScript(workTreeContext(store, indexFile), 'checkpoint', recordScript, [
    previous?.tree ?? '',
    agentRefPrefix(agentId),
    previousHere ? previous.tree : '',
    store.kind === 'repository' ? 'HEAD' : '',
  ]);
  // Equal trees are equal files, whichever store the previous one was recorded in: the script stopped there.
  const tree = sections.get('tree') ?? '';
  if (!sections.has('compared')) return { kind: 'unchanged' };
  const objects = objectContext(store);
  const commit = await writeCommitObject(
    objects,
    checkpointCommitText(tree, atMs, `subagents checkpoint ${agentId} turn ${turn}`),
    `${indexFile}.commit`,
  );
  const stored = parseCheckpointListing(await fs.readFile(`${indexFile}.refs`, 'utf8'));
  const expired = expiredCheckpoints(stored, recording.retention, atMs, ref).map((old) => old.ref);
  await applyRefTransaction(objects, `update ${ref} ${commit}\n${deleteRefsInput(expired)}`);
  const changes = parseNameStatus(await fs.readFile(`${indexFile}.changes`, 'utf8'));
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
  if (input.previous !== undefined && !isObjectId(input.previous?.tree)) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `previous.tree ${JSON.stringify(input.previous?.tree)} is not the tree of a checkpoint.`,
    );
  }
  const recording: Recording = {
    agentId: checkpointAgentName(input.agentId),
    turn: checkpointTurn(input.turn),
    previous: input.previous,
    retention: resolveRetention(input.retention, resolved.env),
    atMs: resolved.now(),
  };
  const located = await locateStore(input.cwd, resolved);
  if (located.kind === 'unavailable') return located;
  const { store } = located;
  try {
    const result = await recoveringStaleLocks(store.commonDir, () => recordIn(store, recording));
    if (input.previous === undefined)
      await sweepOtherAgents(store, recording.agentId, recording.retention.maxAgeDays, recording.atMs);
    return result;
  } catch (error) {
    throw gitFailure(
      `could not record a checkpoint of ${store.root} for agent ${recording.agentId} at turn ${recording.turn}`,
      error,
    );
  }
}
