// Deterministic tokens: ceil(UTF-8 bytes / 4) of a block's JSON, the same for input and output.

/** ceil(UTF-8 bytes / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** Removes `cache_control` from a block (and from the blocks nested in a tool_result). */
export function withoutCacheControl(block: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(block)) {
    if (key === 'cache_control') continue;
    copy[key] =
      key === 'content' && Array.isArray(value)
        ? value.map((nested: unknown) => (isRecord(nested) ? withoutCacheControl(nested) : nested))
        : value;
  }
  return copy;
}

/** The canonical bytes of one block: JSON in the order received, without `cache_control`. */
export const canonicalBlock = (block: Record<string, unknown>): string => JSON.stringify(withoutCacheControl(block));

/** Tokens of one block by the estimate above. */
export const blockTokens = (block: Record<string, unknown>): number => estimateTokens(canonicalBlock(block));

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
