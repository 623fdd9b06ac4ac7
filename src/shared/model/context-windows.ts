// Context windows by model, in tokens; unknown models get the default (docs/architecture.md, Compaction).
export const defaultContextWindow = 200_000;

const million = 1_000_000;

const contextWindowTable: Readonly<Record<string, number>> = {
  'claude-test-tiny': defaultContextWindow,
  /** A test model of the local model server with a small window (bench:long, compaction tests). */
  'claude-test-small': 24_000,
  'claude-haiku-4-5': defaultContextWindow,
  'claude-haiku-4-5-20251001': defaultContextWindow,
  'claude-sonnet-4-0': defaultContextWindow,
  'claude-sonnet-4-5': defaultContextWindow,
  'claude-sonnet-4-5-20250929': defaultContextWindow,
  'claude-opus-4-0': defaultContextWindow,
  'claude-opus-4-1': defaultContextWindow,
  'claude-opus-4-5': defaultContextWindow,
  'claude-opus-4-5-20251101': defaultContextWindow,
  'claude-sonnet-4-6': million,
  'claude-opus-4-6': million,
  'claude-opus-4-7': million,
  'claude-opus-4-8': million,
  'claude-sonnet-5': million,
  'claude-opus-5': million,
  'claude-fable-5': million,
  'claude-fable-5-1': million,
  'claude-mythos-5': million,
  'claude-mythos-5-1': million,
  'claude-mythos-preview': million,
};

/** The context window of a model: the tree's override when given, else the table's value, else the default. */
export function contextWindowOf(model: string, override?: number): number {
  if (override !== undefined && override > 0) return override;
  return contextWindowTable[model] ?? defaultContextWindow;
}
