import type { ThinkingSetting } from '../shared/agent-definition';
import { type EffortLevel, effortForModel } from '../shared/effort';
import type { CacheControl, ContentBlock, MessageParam, ToolDefinition } from '../shared/messages';

const ephemeral: CacheControl = { type: 'ephemeral' };

/** The Messages API request body the model activity sends (without `stream`). */
export interface ModelRequestBody {
  model: string;
  max_tokens: number;
  system: { type: 'text'; text: string; cache_control: CacheControl }[];
  tools?: (ToolDefinition & { cache_control?: CacheControl })[];
  messages: MessageParam[];
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  output_config?: { effort: EffortLevel };
}

/** The API's `thinking` parameter for a setting. */
function thinkingParameter(setting: ThinkingSetting): NonNullable<ModelRequestBody['thinking']> {
  return setting.type === 'enabled' ? { type: 'enabled', budget_tokens: setting.budgetTokens } : { type: 'adaptive' };
}

function withBreakpoint(message: MessageParam): MessageParam {
  const blocks: ContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  const lastIndex = blocks.length - 1;
  const last = blocks[lastIndex];
  // Thinking blocks cannot carry cache_control; such a message gets no breakpoint.
  if (!last || last.type === 'thinking') return message;
  blocks[lastIndex] = { ...last, cache_control: ephemeral };
  return { role: message.role, content: blocks };
}

/**
 * Builds a request with four cache breakpoints: the last tool, the system prompt, the last
 * message, and the user message before the latest assistant message. The last breakpoint writes
 * this turn's prefix; the earlier one reads last turn's entry even when a turn adds more than the
 * 20 blocks the API looks back, so each turn reads the previous turn's prefix.
 */
export function buildModelRequest(options: {
  model: string;
  maxTokens: number;
  systemPrompt: string;
  tools: ToolDefinition[];
  messages: readonly MessageParam[];
  thinking?: ThinkingSetting;
  effort?: EffortLevel;
}): ModelRequestBody {
  const messages = [...options.messages];
  const lastIndex = messages.length - 1;
  if (lastIndex >= 0) messages[lastIndex] = withBreakpoint(messages[lastIndex]!);
  const previousUserIndex = findPreviousUser(messages, lastIndex);
  if (previousUserIndex !== undefined) messages[previousUserIndex] = withBreakpoint(messages[previousUserIndex]!);
  const body: ModelRequestBody = {
    model: options.model,
    max_tokens: options.maxTokens,
    system: [{ type: 'text', text: options.systemPrompt, cache_control: ephemeral }],
    messages,
  };
  if (options.thinking) body.thinking = thinkingParameter(options.thinking);
  const effort = options.effort === undefined ? undefined : effortForModel(options.model, options.effort);
  if (effort) body.output_config = { effort };
  if (options.tools.length > 0) {
    body.tools = options.tools.map((tool, index) => (index === options.tools.length - 1 ? { ...tool, cache_control: ephemeral } : tool));
  }
  return body;
}

/** Index of the last user message before the latest assistant message (the previous turn's end). */
function findPreviousUser(messages: readonly MessageParam[], lastIndex: number): number | undefined {
  let index = lastIndex;
  while (index >= 0 && messages[index]!.role !== 'assistant') index--;
  for (index -= 1; index >= 0; index--) {
    if (messages[index]!.role === 'user') return index;
  }
  return undefined;
}
