/** Model aliases and the ids this runtime knows; one table (docs/agent-definitions.md). */
export const modelAliases: Record<string, string> = {
  haiku: 'claude-haiku-4-5',
  sonnet: 'claude-sonnet-5',
  opus: 'claude-opus-5',
};

/** Default model of a root agent when none is given. */
export const defaultModel = 'claude-sonnet-5';

/** Resolves an alias to a model id; other strings pass through unchanged. */
export function resolveModelAlias(model: string): string {
  return modelAliases[model] ?? model;
}
