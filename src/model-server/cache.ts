// The prompt cache as the API keeps it (prefix hashes, 20-block lookback, TTL refreshed by reads; docs/model-server.md).
import { createHash, type Hash } from 'node:crypto';
import type { PromptLayout } from './cache-layout';
import type { CacheTtl } from './request-types';

/** How many block boundaries before a breakpoint are checked for an earlier entry. */
export const cacheLookbackBlocks = 20;

export const ttlMilliseconds: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

export interface CacheLookup {
  model: string;
  /** The API key: caches are per workspace. */
  workspace: string;
  layout: PromptLayout;
  minimumTokens: number;
  /** Request start (ms). */
  startedAt: number;
}

/** The usage numbers of one request and the cache changes it makes once it starts responding. */
export interface CacheAccounting {
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  ephemeral5mInputTokens: number;
  ephemeral1hInputTokens: number;
  /** Entries read (refreshed on commit). */
  reads: string[];
  writes: Array<{ key: string; ttl: CacheTtl }>;
}

interface CacheEntry {
  expiresAt: number;
  ttl: CacheTtl;
}

/** sha256 hex of the prefix ending after each unit, up to `lastIndex`. */
function prefixDigests(layout: PromptLayout, lastIndex: number): string[] {
  const hash: Hash = createHash('sha256');
  const digests: string[] = [];
  for (let index = 0; index <= lastIndex; index++) {
    hash.update(layout.units[index]?.rendered ?? '', 'utf8');
    digests.push(hash.copy().digest('hex'));
  }
  return digests;
}

/** In-memory prompt cache of one server. */
export class PromptCache {
  private readonly entries = new Map<string, CacheEntry>();

  /** Computes usage for a request without changing the cache. */
  account(lookup: CacheLookup): CacheAccounting {
    const { layout, startedAt } = lookup;
    const none: CacheAccounting = {
      inputTokens: layout.totalTokens,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      ephemeral5mInputTokens: 0,
      ephemeral1hInputTokens: 0,
      reads: [],
      writes: [],
    };
    const last = layout.breakpoints.at(-1);
    if (!last) return none;
    const digests = prefixDigests(layout, last.unitIndex);
    const keyAt = (unitIndex: number): string =>
      `${lookup.model}\u0000${lookup.workspace}\u0000${digests[unitIndex] ?? ''}`;

    let readIndex = -1;
    const reads: string[] = [];
    for (const breakpoint of layout.breakpoints) {
      const earliest = Math.max(0, breakpoint.unitIndex - cacheLookbackBlocks);
      for (let position = breakpoint.unitIndex; position >= earliest; position--) {
        const entry = this.entries.get(keyAt(position));
        if (entry && entry.expiresAt > startedAt) {
          reads.push(keyAt(position));
          readIndex = Math.max(readIndex, position);
          break;
        }
      }
    }
    const tokensThrough = (unitIndex: number): number =>
      unitIndex < 0 ? 0 : (layout.cumulativeTokens[unitIndex] ?? 0);
    const read = tokensThrough(readIndex);
    const lastTokens = tokensThrough(last.unitIndex);
    if (lastTokens < lookup.minimumTokens) {
      return { ...none, inputTokens: layout.totalTokens - read, cacheReadInputTokens: read, reads };
    }

    const byTtl: Record<CacheTtl, number> = { '5m': 0, '1h': 0 };
    const writes: CacheAccounting['writes'] = [];
    let written = read;
    for (const breakpoint of layout.breakpoints) {
      if (breakpoint.unitIndex <= readIndex) continue;
      const through = tokensThrough(breakpoint.unitIndex);
      byTtl[breakpoint.ttl] += through - written;
      written = through;
      if (through >= lookup.minimumTokens) writes.push({ key: keyAt(breakpoint.unitIndex), ttl: breakpoint.ttl });
    }
    return {
      inputTokens: layout.totalTokens - lastTokens,
      cacheReadInputTokens: read,
      cacheCreationInputTokens: lastTokens - read,
      ephemeral5mInputTokens: byTtl['5m'],
      ephemeral1hInputTokens: byTtl['1h'],
      reads,
      writes,
    };
  }

  /** Applies a request's reads (refresh) and writes; call when it starts responding. */
  commit(accounting: CacheAccounting, startedAt: number): void {
    for (const key of accounting.reads) {
      const entry = this.entries.get(key);
      if (entry) entry.expiresAt = Math.max(entry.expiresAt, startedAt + ttlMilliseconds[entry.ttl]);
    }
    for (const { key, ttl } of accounting.writes) {
      const existing = this.entries.get(key);
      const expiresAt = startedAt + ttlMilliseconds[ttl];
      if (!existing || existing.expiresAt < expiresAt) this.entries.set(key, { expiresAt, ttl });
    }
  }

  /** Number of stored entries (expired ones included until overwritten). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
