/**
 * Every agent's checkpoints in one store: listed for `subagents checkpoints`, and pruned by age across agents — by the
 * CLI, and by each agent's first checkpoint, so the refs of agents that never record again expire too.
 */
import fs from 'node:fs/promises';
import { gitFailure } from './failures';
import { runGit } from './git-command';
import { agentIndexDir } from './private-index';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { dayMs, listCheckpoints, type StoredCheckpoint } from './retention';
import { locateStore, objectContext, type CheckpointStore } from './store';
import { parseCheckpointRef } from './names';

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
    const agentId = agentOf(checkpoint);
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

const agentOf = (checkpoint: StoredCheckpoint) => parseCheckpointRef(checkpoint.ref)?.agentId;

/** The checkpoints older than `olderThanDays`, of every agent but `exceptAgentId`. Pure. */
export function olderThan(
  stored: readonly StoredCheckpoint[],
  olderThanDays: number,
  nowMs: number,
  exceptAgentId?: string,
): StoredCheckpoint[] {
  const oldestKept = nowMs - olderThanDays * dayMs;
  return stored.filter((checkpoint) => checkpoint.atMs < oldestKept && agentOf(checkpoint) !== exceptAgentId);
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
      agents: groupByAgent(await listCheckpoints(objectContext(store))),
    };
  } catch (error) {
    throw gitFailure(`could not list the checkpoints in ${store.root}`, error);
  }
}

/**
 * Deletes the checkpoints older than `olderThanDays` (of every agent but `exceptAgentId`), each only if it still names
 * the commit listed (a ref re-recorded since is kept), then the private indexes of agents left with no checkpoint
 * whose index is that old too (a running agent's is newer). Returns what it tried to delete.
 */
async function expireOlderThan(
  store: CheckpointStore,
  olderThanDays: number,
  nowMs: number,
  exceptAgentId?: string,
): Promise<StoredCheckpoint[]> {
  const context = objectContext(store);
  const stored = await listCheckpoints(context);
  const expired = olderThan(stored, olderThanDays, nowMs, exceptAgentId);
  const oldestKeptMs = nowMs - olderThanDays * dayMs;
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
  const expiredRefs = new Set(expired.map((checkpoint) => checkpoint.ref));
  const kept = new Set(
    stored.filter((checkpoint) => !expiredRefs.has(checkpoint.ref)).map((checkpoint) => agentOf(checkpoint)),
  );
  const agents = new Set(expired.map(agentOf));
  for (const agentId of agents) {
    if (agentId === undefined || kept.has(agentId)) continue;
    const folder = agentIndexDir(store, agentId);
    const modified = await fs.stat(folder).then(
      (stats) => stats.mtimeMs,
      () => undefined,
    );
    if (modified !== undefined && modified < oldestKeptMs) await fs.rm(folder, { recursive: true, force: true });
  }
  return expired;
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
    const expired = await expireOlderThan(store, olderThanDays, resolved.now());
    // Listed again: a ref re-recorded since the first listing was kept, and is not reported as removed.
    const after = await listCheckpoints(objectContext(store));
    const left = new Set(after.map((checkpoint) => `${checkpoint.ref} ${checkpoint.commit}`));
    const removed = expired.filter((checkpoint) => !left.has(`${checkpoint.ref} ${checkpoint.commit}`));
    return {
      root: store.root,
      store: store.kind,
      removed: groupByAgent(removed).map(({ agentId, count }) => ({ agentId, count })),
      kept: groupByAgent(after),
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
    return (await expireOlderThan(store, maxAgeDays, nowMs, agentId)).length;
  } catch {
    return 0;
  }
}
