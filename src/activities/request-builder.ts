import type { ThinkingSetting } from '../shared/agents/agent-definition';
import { type EffortLevel, effortForModel } from '../shared/agents/effort';
import { forkDirectiveIndex } from '../shared/agents/fork-layout';
import type { CacheControl, ContentBlock, MessageParam, ToolDefinition } from '../shared/model/messages';

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

/** The message with a breakpoint on its block `at` (default its last). */
function withBreakpoint(message: MessageParam, at?: number): MessageParam {
  const blocks: ContentBlock[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  const index = at ?? blocks.length - 1;
  const block = blocks[index];
  // Thinking blocks cannot carry cache_control; such a message gets no breakpoint.
  if (!block || block.type === 'thinking') return message;
  blocks[index] = { ...block, cache_control: ephemeral };
  return { role: message.role, content: blocks };
}

/** A request with four cache breakpoints, a fork's last before its directive (docs/architecture.md, Prompt caching). */
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
  const directive = forkDirectiveIndex(messages[lastIndex]);
  if (lastIndex >= 0)
    messages[lastIndex] = withBreakpoint(messages[lastIndex]!, directive === undefined ? undefined : directive - 1);
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
    body.tools = options.tools.map((tool, index) =>
      index === options.tools.length - 1 ? { ...tool, cache_control: ephemeral } : tool,
    );
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
