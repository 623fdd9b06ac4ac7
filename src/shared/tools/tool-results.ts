import type {
  ContentBlock,
  MessageParam,
  TextBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from '../model/messages';

/** The model-facing outcome of one tool call. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Rich content (text and images, e.g. from an MCP tool) sent instead of `content` when present. */
  blocks?: ToolResultContent[];
}

/** The tool_result message for an assistant message, in tool_use order; a missing outcome becomes an error result. */
export function buildToolResultMessage(
  toolUses: readonly ToolUseBlock[],
  outcomes: Readonly<Record<string, ToolOutcome>>,
  missingText: string,
  extraText: readonly string[] = [],
): MessageParam {
  const results: ToolResultBlock[] = toolUses.map((toolUse) => {
    const outcome = outcomes[toolUse.id];
    const block: ToolResultBlock = {
      type: 'tool_result',
      tool_use_id: toolUse.id,
      content: outcome?.blocks?.length ? outcome.blocks : outcome?.content || (outcome ? '(no output)' : missingText),
    };
    if (!outcome || outcome.isError) block.is_error = true;
    return block;
  });
  const texts: TextBlock[] = extraText.filter((text) => text.length > 0).map((text) => ({ type: 'text', text }));
  return { role: 'user', content: [...results, ...texts] };
}

/** The tool_use blocks of a message, in order. */
export function toolUsesOf(content: readonly ContentBlock[] | string): ToolUseBlock[] {
  if (typeof content === 'string') return [];
  return content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

/** The concatenated text blocks of a message. */
export function textOf(content: readonly ContentBlock[] | string): string {
  if (typeof content === 'string') return content;
  return content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** Drops a trailing assistant message's unanswered tool_uses (and the message if left empty), for resume. */
export function dropUnresolvedToolUses(messages: readonly MessageParam[]): MessageParam[] {
  const result = [...messages];
  const last = result[result.length - 1];
  if (!last || last.role !== 'assistant' || typeof last.content === 'string') return result;
  const kept = last.content.filter((block) => block.type !== 'tool_use');
  if (kept.length === 0) result.pop();
  else result[result.length - 1] = { role: 'assistant', content: kept };
  return result;
}

/** Appends user text to a conversation: a new user message, or merged into a trailing user message. */
export function appendUserText(messages: readonly MessageParam[], text: string): MessageParam[] {
  const result = [...messages];
  const last = result[result.length - 1];
  if (last?.role === 'user') {
    const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
    result[result.length - 1] = { role: 'user', content: [...blocks, { type: 'text', text }] };
  } else {
    result.push({ role: 'user', content: [{ type: 'text', text }] });
  }
  return result;
}
