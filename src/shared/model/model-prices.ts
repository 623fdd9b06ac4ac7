// Prices: https://platform.claude.com/docs/en/about-claude/pricing (Sonnet 5: …/docs/en/models/sonnet-5/overview), checked 2026-12-05.
import type { TokenUsage } from './messages';
import { resolveModelAlias } from '../agents/models';

/** USD per million tokens of one model family, as the pricing page lists them. */
export interface ModelPrice {
  family: string;
  input: number;
  output: number;
  /** Cache writes with the 5-minute TTL (1.25 × input). */
  cacheWrite5m: number;
  /** Cache writes with the 1-hour TTL (2 × input). */
  cacheWrite1h: number;
  /** Cache hits and refreshes (0.1 × input, but 0.025 × on the 5.1 models). */
  cacheRead: number;
}

/** A model's prices; `known: false` when the table does not know the model and its prices are the fallback. */
export interface PriceLookup extends ModelPrice {
  known: boolean;
}

/** A usage that may say how many of its cache writes had the 1-hour TTL (the rest are priced at the 5-minute rate). */
export interface PricedUsage extends TokenUsage {
  cacheCreation1hInputTokens?: number;
}

interface PriceRow extends ModelPrice {
  /** API ids without a date suffix (a `-YYYYMMDD` suffix is dropped before lookup). */
  ids: readonly string[];
}

const priceRows: readonly PriceRow[] = [
  // Not on the pricing page (invitation only); Anthropic announced $25 / $125 for Project Glasswing, caches by the usual multipliers.
  {
    family: 'Claude Mythos Preview',
    ids: ['claude-mythos-preview'],
    input: 25,
    output: 125,
    cacheWrite5m: 31.25,
    cacheWrite1h: 50,
    cacheRead: 2.5,
  },
  {
    family: 'Claude Fable 5.1 / Mythos 5.1',
    ids: ['claude-fable-5-1', 'claude-mythos-5-1'],
    input: 10,
    output: 50,
    cacheWrite5m: 12.5,
    cacheWrite1h: 20,
    cacheRead: 0.25,
  },
  {
    family: 'Claude Fable 5 / Mythos 5',
    ids: ['claude-fable-5', 'claude-mythos-5'],
    input: 10,
    output: 50,
    cacheWrite5m: 12.5,
    cacheWrite1h: 20,
    cacheRead: 1,
  },
  {
    family: 'Claude Opus 4.5 – 5',
    ids: ['claude-opus-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-opus-4-5'],
    input: 5,
    output: 25,
    cacheWrite5m: 6.25,
    cacheWrite1h: 10,
    cacheRead: 0.5,
  },
  {
    family: 'Claude Opus 4 / 4.1',
    ids: ['claude-opus-4-1', 'claude-opus-4-0', 'claude-opus-4'],
    input: 15,
    output: 75,
    cacheWrite5m: 18.75,
    cacheWrite1h: 30,
    cacheRead: 1.5,
  },
  {
    family: 'Claude Sonnet 5',
    ids: ['claude-sonnet-5'],
    input: 2,
    output: 10,
    cacheWrite5m: 2.5,
    cacheWrite1h: 4,
    cacheRead: 0.2,
  },
  // Sonnet 4 and 4.5 cost more past 200K input tokens; the runtime gives them a 200K window (context-windows.ts).
  {
    family: 'Claude Sonnet 4 – 4.6',
    ids: ['claude-sonnet-4-6', 'claude-sonnet-4-5', 'claude-sonnet-4-0', 'claude-sonnet-4'],
    input: 3,
    output: 15,
    cacheWrite5m: 3.75,
    cacheWrite1h: 6,
    cacheRead: 0.3,
  },
  {
    family: 'Claude Haiku 4.5',
    ids: ['claude-haiku-4-5'],
    input: 1,
    output: 5,
    cacheWrite5m: 1.25,
    cacheWrite1h: 2,
    cacheRead: 0.1,
  },
];

const priceById = new Map(priceRows.flatMap((row) => row.ids.map((id) => [id, row] as const)));

const withoutIds = ({ ids: _ids, ...price }: PriceRow): ModelPrice => price;

/** The family an unknown model is priced as: the dearest, so a cost cap never under-counts. */
const fallbackRow = priceRows.reduce((dearest, row) => (row.output > dearest.output ? row : dearest));

/** Prices of a model id, alias (`opus`) or dated id (`claude-haiku-4-5-20251001`); unknown ids get the dearest family's, `known: false`. */
export function priceOf(model: string): PriceLookup {
  const id = resolveModelAlias(model.trim()).replace(/-\d{8}$/, '');
  const row = priceById.get(id);
  return row ? { ...withoutIds(row), known: true } : { ...withoutIds(fallbackRow), known: false };
}

/** USD of a usage: input, output, cache writes (5-minute rate unless `cacheCreation1hInputTokens` says otherwise) and reads. */
export function costOfUsage(model: string, usage: PricedUsage): number {
  const price = priceOf(model);
  const oneHour = Math.min(usage.cacheCreation1hInputTokens ?? 0, usage.cacheCreationInputTokens);
  const perMillion =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    (usage.cacheCreationInputTokens - oneHour) * price.cacheWrite5m +
    oneHour * price.cacheWrite1h +
    usage.cacheReadInputTokens * price.cacheRead;
  return perMillion / 1_000_000;
}

/** USD estimate of uncached input and output tokens (a reservation before the call). */
export function costOfTokens(model: string, tokens: { input: number; output: number }): number {
  const price = priceOf(model);
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
}
