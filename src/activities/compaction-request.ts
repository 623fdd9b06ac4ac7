import { compactionInstruction } from '../shared/model/compaction';
import { estimateConversationTokens, estimateTextTokens } from '../shared/model/context-estimate';
import type { ContentBlock, MessageParam, ToolDefinition } from '../shared/model/messages';

/** What replaces an old tool result that does not fit in a compaction request. */
export const clearedToolResultText = '[Old tool result content cleared]';

/** Share of the window a compaction request may fill; the rest is margin for the estimate. */
const requestWindowShare = 0.95;
/** Tool results at most this long are never cleared; text blocks at most this long are never cut. */
const keepBlockChars = 1000;

/** The conversation plus the instruction, old large blocks cut to fit (docs/architecture.md, Compaction). */
export function compactionRequestMessages(
  messages: readonly MessageParam[],
  options: {
    instructions?: string;
    contextWindowTokens: number;
    systemPrompt: string;
    tools: readonly ToolDefinition[];
  },
): MessageParam[] {
  const instruction = compactionInstruction(options.instructions);
  const fixed =
    estimateTextTokens(options.systemPrompt) +
    estimateTextTokens(JSON.stringify(options.tools)) +
    estimateTextTokens(instruction) +
    16;
  const budget = Math.floor(options.contextWindowTokens * requestWindowShare) - fixed;
  const fitted = fitToBudget(messages, budget);
  const last = fitted[fitted.length - 1];
  const instructionBlock = { type: 'text' as const, text: instruction };
  if (last?.role === 'user') {
    const blocks: ContentBlock[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
    fitted[fitted.length - 1] = { role: 'user', content: [...blocks, instructionBlock] };
  } else {
    fitted.push({ role: 'user', content: [instructionBlock] });
  }
  return fitted;
}

function fitToBudget(messages: readonly MessageParam[], budget: number): MessageParam[] {
  const result = messages.map((message) => ({ ...message }));
  let tokens = estimateConversationTokens(result);
  for (const shrink of [clearToolResult, cutText]) {
    for (let index = 0; index < result.length && tokens > budget; index++) {
      const message = result[index]!;
      if (typeof message.content === 'string') continue;
      const before = estimateConversationTokens([message]);
      message.content = message.content.map(shrink);
      tokens += estimateConversationTokens([message]) - before;
    }
  }
  return result;
}

function clearToolResult(block: ContentBlock): ContentBlock {
  if (block.type !== 'tool_result') return block;
  const length = typeof block.content === 'string' ? block.content.length : JSON.stringify(block.content).length;
  return length > keepBlockChars ? { ...block, content: clearedToolResultText } : block;
}

function cutText(block: ContentBlock): ContentBlock {
  if (block.type !== 'text' || block.text.length <= keepBlockChars) return block;
  return {
    ...block,
    text: `${block.text.slice(0, keepBlockChars)}\n[… ${block.text.length - keepBlockChars} characters cut from this old message for the summary]`,
  };
}
