import type { ThinkingSetting } from '../agents/agent-definition';
import type { MessageParam, ToolDefinition } from './messages';

/** Whether a budgeted agent's first call asks `count_tokens` for its input (docs/budgets.md, "Counted input"). */
export type CountTokensSetting = 'auto' | 'always' | 'never';

/** The worker's environment variable of the setting (docs/configuration.md). */
export const countTokensVariable = 'SUBAGENTS_COUNT_TOKENS';

const settings: readonly CountTokensSetting[] = ['auto', 'always', 'never'];

/** A `SUBAGENTS_COUNT_TOKENS` value the worker cannot take: it does not start. */
export class CountTokensSettingError extends Error {
  override readonly name = 'CountTokensSettingError';
}

/** The setting from its variable's value (unset or empty: `auto`); anything else is a {@link CountTokensSettingError} saying what to give. */
export function parseCountTokensSetting(value: string | undefined): CountTokensSetting {
  const trimmed = value?.trim().toLowerCase() ?? '';
  if (trimmed === '') return 'auto';
  const setting = settings.find((candidate) => candidate === trimmed);
  if (setting) return setting;
  throw new CountTokensSettingError(
    `${countTokensVariable}=${JSON.stringify(value)}: give "auto" (the default: count a budgeted agent's first call only on api.anthropic.com), "always" or "never".`,
  );
}

/** Whether calls are counted with this setting when the worker's Anthropic client sends to `baseUrl`. */
export function countsTokens(setting: CountTokensSetting, baseUrl: string): boolean {
  if (setting !== 'auto') return setting === 'always';
  try {
    return new URL(baseUrl).hostname === 'api.anthropic.com';
  } catch {
    return false;
  }
}

/** Input of the count activity: what the model call's request is built from (a local activity's input stays out of history). */
export interface CountTokensInput {
  agentId: string;
  model: string;
  systemPrompt: string;
  /** The agent's tool names, and its extra (MCP) tools' definitions, as the model call sends them. */
  tools: string[];
  extraTools?: ToolDefinition[];
  messages: MessageParam[];
  thinking?: ThinkingSetting;
}

/** The request's input tokens by `count_tokens`, or why there is no count (the call then reserves its estimate). */
export type CountTokensResult = { inputTokens: number } | { skipped: 'off' } | { failed: string };
