/** Models the local server knows, with the minimum cacheable prefix (reference §3) and context window of each. */

export interface ServerModel {
  id: string;
  /** Below this many prompt tokens a breakpoint silently caches nothing. */
  cacheMinimumTokens: number;
  /** A request whose prompt tokens exceed this is a 400 "prompt is too long". */
  contextWindow: number;
}

const minimums: Array<[number, string[]]> = [
  [64, ['claude-test-tiny', 'claude-test-small']],
  // Fable 5 and Mythos 5 are assumed to share the 5.1 minimum; the reference lists only 5.1.
  [512, ['claude-opus-5', 'claude-fable-5', 'claude-fable-5-1', 'claude-mythos-5', 'claude-mythos-5-1']],
  [
    1024,
    [
      'claude-opus-4-8',
      'claude-sonnet-5',
      'claude-sonnet-4-6',
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1',
      'claude-opus-4-0',
      'claude-sonnet-4-0',
    ],
  ],
  [2048, ['claude-opus-4-7', 'claude-mythos-preview']],
  [
    4096,
    ['claude-opus-4-6', 'claude-opus-4-5', 'claude-opus-4-5-20251101', 'claude-haiku-4-5', 'claude-haiku-4-5-20251001'],
  ],
];

/** Windows other than 200,000 tokens; `claude-test-small` is tiny so compaction can be exercised. */
const windows: Record<string, number> = {
  'claude-test-small': 24_000,
  'claude-sonnet-4-6': 1_000_000,
  'claude-sonnet-5': 1_000_000,
  'claude-opus-5': 1_000_000,
  'claude-opus-4-6': 1_000_000,
  'claude-opus-4-7': 1_000_000,
  'claude-opus-4-8': 1_000_000,
  'claude-fable-5': 1_000_000,
  'claude-fable-5-1': 1_000_000,
  'claude-mythos-5': 1_000_000,
  'claude-mythos-5-1': 1_000_000,
  'claude-mythos-preview': 1_000_000,
};
const defaultWindow = 200_000;

/** Every model id the server accepts; anything else is a 404 `not_found_error`. */
export const serverModels: ReadonlyMap<string, ServerModel> = new Map(
  minimums.flatMap(([cacheMinimumTokens, ids]) =>
    ids.map((id) => [id, { id, cacheMinimumTokens, contextWindow: windows[id] ?? defaultWindow }] as const),
  ),
);

/** Looks a model up by exact id (aliases such as `sonnet` are not API model ids). */
export function findServerModel(id: string): ServerModel | undefined {
  return serverModels.get(id);
}
