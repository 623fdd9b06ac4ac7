// Limits of the model calls prompt hooks make (docs/hooks.md, "prompt").

export const promptHookLimits = {
  /** max_tokens of a prompt hook's answer ({"ok", "reason"} is short). */
  maxOutputTokens: 1_024,
  /** Characters of prompt (with the event's JSON) sent; the rest is cut, and said so. */
  maxPromptChars: 200_000,
} as const;

/** What a budgeted tree reserves for one prompt hook call: its input bound (at least 2 characters a token) and max_tokens. */
export function promptHookCallBound(promptChars: number): { inputTokens: number; maxOutputTokens: number } {
  const chars = Math.min(promptChars, promptHookLimits.maxPromptChars + 100) + 600;
  return { inputTokens: Math.ceil(chars / 2) + 50, maxOutputTokens: promptHookLimits.maxOutputTokens };
}
