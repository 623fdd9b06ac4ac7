/**
 * Every agent's checkpoints in one store: listed for `subagents checkpoints`, and pruned by age across agents — by the
 * CLI, and by each agent's first checkpoint, so the refs of agents that never record again expire too.
 */
import fs from 'node:fs/promises';
import { checkpointRefPrefix } from '../shared/workspace/checkpoints';
import { gitFailure } from './failures';
import { runGit, type GitContext } from './git-command';
import { agentIndexDir } from './private-index';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { parseCheckpointListing, type StoredCheckpoint } from './retention';
import { locateStore, objectContext, type CheckpointStore } from './store';
import { parseCheckpointRef } from './names';

const dayMs = 24 * 60 * 60 * 1000;

/** One agent's checkpoints in a store. */
export interface AgentCheckpoints {
  agentId: string;
  count: number;
  firstTurn: number;
  lastTurn: number;
  oldestAtMs: number;
  newestAtMs: number;
}

/** What a store holds, or why a directory has none. */
export type CheckpointInventory =
  | { kind: 'store'; root: string; store: CheckpointStore['kind']; agents: AgentCheckpoints[] }
  | { kind: 'unavailable'; root: string; reason: string };

/** Agents' checkpoints grouped from a listing, most recently recorded first. Pure. */
export function groupByAgent(stored: readonly StoredCheckpoint[]): AgentCheckpoints[] {
  const agents = new Map<string, AgentCheckpoints>();
  for (const checkpoint of stored) {
    const agentId = parseCheckpointRef(checkpoint.ref)?.agentId;
    if (agentId === undefined) continue;
    const entry = agents.get(agentId);
    if (!entry) {
      agents.set(agentId, {
        agentId,
        count: 1,
        firstTurn: checkpoint.turn,
        lastTurn: checkpoint.turn,
        oldestAtMs: checkpoint.atMs,
        newestAtMs: checkpoint.atMs,
      });
      continue;
    }
    entry.count += 1;
    entry.firstTurn = Math.min(entry.firstTurn, checkpoint.turn);
    entry.lastTurn = Math.max(entry.lastTurn, checkpoint.turn);
    entry.oldestAtMs = Math.min(entry.oldestAtMs, checkpoint.atMs);
    entry.newestAtMs = Math.max(entry.newestAtMs, checkpoint.atMs);
  }
  return [...agents.values()].sort((a, b) => b.newestAtMs - a.newestAtMs || a.agentId.localeCompare(b.agentId));
}

/** The checkpoints older than `olderThanDays`, of every agent but `exceptAgentId`. Pure. */
export function olderThan(
  stored: readonly StoredCheckpoint[],
  olderThanDays: number,
  nowMs: number,
  exceptAgentId?: string,
): StoredCheckpoint[] {
  const oldestKept = nowMs - olderThanDays * dayMs;
  return stored.filter(
    (checkpoint) => checkpoint.atMs < oldestKept && parseCheckpointRef(checkpoint.ref)?.agentId !== exceptAgentId,
  );
}

async function listAll(context: GitContext): Promise<StoredCheckpoint[]> {
  return parseCheckpointListing(
    await runGit(context, [
      'for-each-ref',
      '--format=%(refname)%09%(objectname)%09%(committerdate:unix)',
      checkpointRefPrefix,
    ]),
  );
}

/** Every agent's checkpoints in the store recording `directory` (a repository's, or this machine's private one). */
export async function listStoredCheckpoints(
  directory: string,
  options?: CheckpointOptions,
): Promise<CheckpointInventory> {
  const located = await locateStore(directory, resolveCheckpointOptions(options), true);
  if (located.kind === 'unavailable') return { kind: 'unavailable', root: directory, reason: located.reason };
  const { store } = located;
  try {
    return {
      kind: 'store',
      root: store.root,
      store: store.kind,
      agents: groupByAgent(await listAll(objectContext(store))),
    };
  } catch (error) {
    throw gitFailure(`could not list the checkpoints in ${store.root}`, error);
  }
}

/**
 * Deletes the `expired` refs, each only if it still names the commit listed (a ref re-recorded since is kept), then
 * the private indexes of agents left with no checkpoint whose index is that old too (a running agent's is newer).
 */
async function deleteExpired(
  store: CheckpointStore,
  expired: readonly StoredCheckpoint[],
  remaining: readonly StoredCheckpoint[],
  oldestKeptMs: number,
): Promise<void> {
  const context = objectContext(store);
  const input = expired.map((checkpoint) => `delete ${checkpoint.ref} ${checkpoint.commit}\n`).join('');
  // One transaction; should a ref have changed since the listing, it fails whole, and each ref is tried alone.
  if (
    input !== '' &&
    !(await runGit(context, ['update-ref', '--stdin'], input).then(
      () => true,
      () => false,
    ))
  ) {
    for (const checkpoint of expired) {
      await runGit(context, ['update-ref', '-d', checkpoint.ref, checkpoint.commit]).catch(() => undefined);
    }
  }
  const kept = new Set(remaining.map((checkpoint) => parseCheckpointRef(checkpoint.ref)?.agentId));
  const agents = new Set(expired.map((checkpoint) => parseCheckpointRef(checkpoint.ref)?.agentId));
  for (const agentId of agents) {
    if (agentId === undefined || kept.has(agentId)) continue;
    const folder = agentIndexDir(store, agentId);
    const modified = await fs.stat(folder).then(
      (stats) => stats.mtimeMs,
      () => undefined,
    );
    if (modified !== undefined && modified < oldestKeptMs) await fs.rm(folder, { recursive: true, force: true });
  }
}

/** What a prune removed. */
export interface PruneResult {
  root: string;
  store: CheckpointStore['kind'];
  removed: { agentId: string; count: number }[];
  kept: AgentCheckpoints[];
}

/** Drops every agent's checkpoints older than `olderThanDays` in the store recording `directory`. */
export async function pruneStoredCheckpoints(
  directory: string,
  olderThanDays: number,
  options?: CheckpointOptions,
): Promise<PruneResult | Extract<CheckpointInventory, { kind: 'unavailable' }>> {
  const resolved = resolveCheckpointOptions(options);
  const located = await locateStore(directory, resolved, true);
  if (located.kind === 'unavailable') return { kind: 'unavailable', root: directory, reason: located.reason };
  const { store } = located;
  try {
    const stored = await listAll(objectContext(store));
    const nowMs = resolved.now();
    const expired = olderThan(stored, olderThanDays, nowMs);
    const remaining = stored.filter((checkpoint) => !expired.includes(checkpoint));
    await deleteExpired(store, expired, remaining, nowMs - olderThanDays * dayMs);
    return {
      root: store.root,
      store: store.kind,
      removed: groupByAgent(expired).map(({ agentId, count }) => ({ agentId, count })),
      kept: groupByAgent(await listAll(objectContext(store))),
    };
  } catch (error) {
    throw gitFailure(`could not prune the checkpoints in ${store.root}`, error);
  }
}

/**
 * Other agents' checkpoints past the age limit, deleted when an agent records its first checkpoint in a store: an
 * agent's own retention runs only while it records, and most agents finish. Best effort: a failure records nothing.
 */
export async function sweepOtherAgents(
  store: CheckpointStore,
  agentId: string,
  maxAgeDays: number,
  nowMs: number,
): Promise<number> {
  try {
    const stored = await listAll(objectContext(store));
    const expired = olderThan(stored, maxAgeDays, nowMs, agentId);
    if (expired.length === 0) return 0;
    const remaining = stored.filter((checkpoint) => !expired.includes(checkpoint));
    await deleteExpired(store, expired, remaining, nowMs - maxAgeDays * dayMs);
    return expired.length;
  } catch {
    return 0;
  }
}
