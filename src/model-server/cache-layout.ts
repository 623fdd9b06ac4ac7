// Splits a request into cache units in render order (tools → system → messages) and finds its breakpoints.
import { invalidRequest } from './api-error';
import type { CacheControlParam, CacheTtl, MessagesRequest, RequestBlock } from './request-types';
import { canonicalBlock, estimateTokens, isRecord } from './tokens';

export const maxBreakpoints = 4;

export interface CacheUnit {
  /** The bytes this unit adds to the prefix (a location tag and the canonical JSON). */
  rendered: string;
  tokens: number;
  /** Whether automatic caching may place its breakpoint here (not on thinking blocks). */
  eligible: boolean;
  /** Explicit marker on the block (or on a block nested in a tool_result). */
  cacheControl?: CacheControlParam;
}

export interface Breakpoint {
  unitIndex: number;
  ttl: CacheTtl;
}

export interface PromptLayout {
  units: CacheUnit[];
  /** cumulativeTokens[i] = tokens of units 0..i. */
  cumulativeTokens: number[];
  totalTokens: number;
  /** In render order, at most 4. */
  breakpoints: Breakpoint[];
}

function readCacheControl(value: unknown): CacheControlParam | undefined {
  if (!isRecord(value)) return undefined;
  return { type: 'ephemeral', ttl: value.ttl === '1h' ? '1h' : '5m' };
}

/** The block's own marker, else the last marker nested in its tool_result content; and how many markers it holds. */
function markersOf(block: Record<string, unknown>): { marker?: CacheControlParam; count: number } {
  const own = readCacheControl(block.cache_control);
  const nested = Array.isArray(block.content)
    ? block.content
        .filter(isRecord)
        .map((inner) => readCacheControl(inner.cache_control))
        .filter((marker) => marker !== undefined)
    : [];
  const marker = own ?? nested.at(-1);
  const count = (own ? 1 : 0) + nested.length;
  return marker ? { marker, count } : { count };
}

function unitOf(tag: string, block: Record<string, unknown>, eligible: boolean): { unit: CacheUnit; markers: number } {
  const json = canonicalBlock(block);
  const { marker, count } = markersOf(block);
  const unit: CacheUnit = { rendered: `${tag} ${json}\n`, tokens: estimateTokens(json), eligible };
  if (marker) unit.cacheControl = marker;
  return { unit, markers: count };
}

const isThinking = (block: RequestBlock): boolean => block.type === 'thinking' || block.type === 'redacted_thinking';

/** Lays out the prompt and validates its breakpoints (count, TTL order, automatic-caching conflicts). */
export function layoutPrompt(request: MessagesRequest): PromptLayout {
  const built = [
    ...request.tools.map((tool, index) => unitOf(`tools.${index}`, tool, true)),
    ...request.system.map((block, index) => unitOf(`system.${index}`, block, true)),
    ...request.messages.flatMap((message, messageIndex) =>
      message.content.map((block, blockIndex) =>
        unitOf(`messages.${messageIndex}.${message.role}.${blockIndex}`, block, !isThinking(block)),
      ),
    ),
  ];
  const units = built.map((entry) => entry.unit);
  let markerCount = built.reduce((sum, entry) => sum + entry.markers, 0);
  const breakpoints: Breakpoint[] = [];
  units.forEach((unit, unitIndex) => {
    if (unit.cacheControl) breakpoints.push({ unitIndex, ttl: unit.cacheControl.ttl });
  });

  if (request.cacheControl) {
    let target = units.length - 1;
    while (target >= 0 && !units[target]?.eligible) target -= 1;
    const explicit = units[target]?.cacheControl;
    if (explicit && explicit.ttl !== request.cacheControl.ttl) {
      throw invalidRequest(
        `cache_control: the top-level cache_control ttl '${request.cacheControl.ttl}' conflicts with the ttl '${explicit.ttl}' of the cache_control on the last cacheable block.`,
      );
    }
    if (target >= 0 && !explicit) {
      breakpoints.push({ unitIndex: target, ttl: request.cacheControl.ttl });
      markerCount += 1;
    }
  }
  if (markerCount > maxBreakpoints) {
    throw invalidRequest(
      `A maximum of ${maxBreakpoints} blocks with cache_control may be provided. Found ${markerCount}.`,
    );
  }
  breakpoints.sort((left, right) => left.unitIndex - right.unitIndex);
  const firstShort = breakpoints.findIndex((breakpoint) => breakpoint.ttl === '5m');
  if (firstShort >= 0 && breakpoints.slice(firstShort).some((breakpoint) => breakpoint.ttl === '1h')) {
    throw invalidRequest(
      "A 'ttl'='1h' cache_control block must not come after a 'ttl'='5m' cache_control block. " +
        'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
    );
  }

  const cumulativeTokens: number[] = [];
  let running = 0;
  for (const unit of units) {
    running += unit.tokens;
    cumulativeTokens.push(running);
  }
  return { units, cumulativeTokens, totalTokens: running, breakpoints };
}
