import type { TokenUsage } from '../model/messages';

// Leases: room for several calls an agent spends without a round trip to the root (docs/budgets.md).

/** Model calls' worth of room an agent asks to lease (the room each call would reserve, times this). */
export const leaseCalls = 8;

/** A lease is topped up when what it has left would not cover this many more calls. */
export const leaseTopUpCalls = 2;

/** One scope of the asking agent's chain as the ledger sees it. */
export interface LeaseScope {
  /** Not capped by turns or tool calls (counted exactly), not exhausted, not tight. */
  leasable: boolean;
  /** Tokens left under its token cap after what is spent and held (undefined: no token cap). */
  tokens?: number;
  /** Tokens its cost cap still affords at the dearest token (undefined: no cost cap). */
  costTokens?: number;
  /** Running agents of the scope, who may each ask for a share of it. */
  runningAgents: number;
}

/** Lease size: what is asked, capped so leases hold at most half of each scope's room; undefined: reserve exactly. */
export function leaseSizeOf(
  scopes: readonly LeaseScope[],
  wantedTokens: number,
  callTokens: number,
): number | undefined {
  let size = wantedTokens;
  for (const scope of scopes) {
    if (!scope.leasable) return undefined;
    for (const room of [scope.tokens, scope.costTokens]) {
      if (room === undefined) continue;
      size = Math.min(size, Math.floor(Math.max(0, room) / (2 * Math.max(1, scope.runningAgents))));
    }
  }
  return size >= callTokens && size > 0 ? size : undefined;
}

/** The price of the dearest kind of token for a model, so a lease's tokens never cost more than it holds. */
export function maxTokenCostOf(costOf: (model: string, usage: TokenUsage) => number, model: string): number {
  const none: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
  return Math.max(
    costOf(model, { ...none, inputTokens: 1 }),
    costOf(model, { ...none, outputTokens: 1 }),
    costOf(model, { ...none, cacheCreationInputTokens: 1 }),
    costOf(model, { ...none, cacheReadInputTokens: 1 }),
  );
}
