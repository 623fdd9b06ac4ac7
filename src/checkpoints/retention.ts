/** How long checkpoints are kept: settings from the environment, and which refs an agent no longer keeps. */
import { ErrorType } from '../shared/protocol/errors';
import {
  checkpointRefPrefix,
  defaultCheckpointRetention,
  type CheckpointRetention,
} from '../shared/workspace/checkpoints';
import { checkpointFailure } from './failures';
import { runGit, type GitContext } from './git-command';
import { agentRefPrefix, parseCheckpointRef } from './names';

/** The environment variables of each retention setting. */
export const retentionVariables = {
  keep: 'SUBAGENTS_CHECKPOINT_KEEP',
  maxAgeDays: 'SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS',
} as const;

export const dayMs = 24 * 60 * 60 * 1000;

function positiveInteger(value: unknown, name: string, meaning: string): number {
  const parsed = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `${name} must be a positive whole number (${meaning}), not ${JSON.stringify(value)}.`,
    );
  }
  return parsed;
}

/** Retention from SUBAGENTS_CHECKPOINT_KEEP and SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS, defaults for unset ones. */
export function retentionFromEnv(env: NodeJS.ProcessEnv): CheckpointRetention {
  const keep = env[retentionVariables.keep];
  const maxAgeDays = env[retentionVariables.maxAgeDays];
  return {
    keep:
      keep === undefined || keep === ''
        ? defaultCheckpointRetention.keep
        : positiveInteger(keep, retentionVariables.keep, 'checkpoints kept per agent'),
    maxAgeDays:
      maxAgeDays === undefined || maxAgeDays === ''
        ? defaultCheckpointRetention.maxAgeDays
        : positiveInteger(maxAgeDays, retentionVariables.maxAgeDays, 'days a checkpoint is kept'),
  };
}

/** The retention given with a call, checked; the environment's when none is given. */
export function resolveRetention(
  retention: CheckpointRetention | undefined,
  env: NodeJS.ProcessEnv,
): CheckpointRetention {
  if (!retention) return retentionFromEnv(env);
  return {
    keep: positiveInteger(retention.keep, 'retention.keep', 'checkpoints kept per agent'),
    maxAgeDays: positiveInteger(retention.maxAgeDays, 'retention.maxAgeDays', 'days a checkpoint is kept'),
  };
}

/** One checkpoint ref as stored. */
export interface StoredCheckpoint {
  ref: string;
  commit: string;
  turn: number;
  /** The checkpoint commit's committer date (git keeps seconds). */
  atMs: number;
}

/** The refs retention drops: past the `keep` newest, or older than `maxAgeDays`; never `recordedRef`. */
export function expiredCheckpoints(
  stored: readonly StoredCheckpoint[],
  retention: CheckpointRetention,
  nowMs: number,
  recordedRef: string,
): StoredCheckpoint[] {
  // Newest by date, then by turn: after a rewind, re-recorded low turns are newer than the abandoned high ones.
  const newestFirst = stored
    .filter((checkpoint) => checkpoint.ref !== recordedRef)
    .sort((a, b) => b.atMs - a.atMs || b.turn - a.turn);
  const oldestKept = nowMs - retention.maxAgeDays * dayMs;
  let kept = 1; // the one just recorded
  const expired: StoredCheckpoint[] = [];
  for (const checkpoint of newestFirst) {
    if (kept >= retention.keep || checkpoint.atMs < oldestKept) expired.push(checkpoint);
    else kept += 1;
  }
  return expired;
}

/** The `git for-each-ref` format of a checkpoint listing: ref, commit and its committer date, tab-separated. */
export const checkpointListingFormat = '%(refname)%09%(objectname)%09%(committerdate:unix)';

/** Checkpoint refs from `git for-each-ref --format=<checkpointListingFormat>`. */
export function parseCheckpointListing(output: string): StoredCheckpoint[] {
  const stored: StoredCheckpoint[] = [];
  for (const line of output.split('\n')) {
    const [ref = '', commit = '', seconds = ''] = line.split('\t');
    const parsed = parseCheckpointRef(ref);
    if (parsed) stored.push({ ref, commit, turn: parsed.turn, atMs: Number(seconds) * 1000 });
  }
  return stored;
}

/** The checkpoint refs of one agent in a store, or of every agent without `agentId`. */
export async function listCheckpoints(context: GitContext, agentId?: string): Promise<StoredCheckpoint[]> {
  const prefix = agentId === undefined ? checkpointRefPrefix : agentRefPrefix(agentId);
  return parseCheckpointListing(await runGit(context, ['for-each-ref', `--format=${checkpointListingFormat}`, prefix]));
}

/** `update-ref --stdin` lines deleting refs (no old-value check: a ref someone else deleted first is fine). */
export function deleteRefsInput(refs: readonly string[]): string {
  return refs.map((ref) => `delete ${ref}\n`).join('');
}

/** Deletes refs in one transaction. */
export async function deleteRefs(context: GitContext, refs: readonly string[]): Promise<void> {
  if (refs.length === 0) return;
  await runGit(context, ['update-ref', '--stdin'], deleteRefsInput(refs));
}
