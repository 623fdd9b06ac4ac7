import type { ContentBlock, MessageParam, TextBlock, ToolResultBlock } from '../shared/messages';
import { toolUsesOf } from './tool-results';

/** The tag that wraps a fork's directive; finding it in an agent's history marks the agent as a fork. */
export const forkMarker = 'fork-boilerplate';

/** The one tool_result text every tool_use of the forking message gets in every fork child. */
export const forkPlaceholderResult = 'Fork started — processing in background';

/** The child's directive, wrapped in the fork marker with the rules a fork follows. */
export function forkDirective(directive: string): string {
  return [
    `<${forkMarker}>`,
    'You are a fork of the agent whose conversation is above: you share its context, tools and model, and you',
    'work on your own. Rules:',
    '- Do the work yourself with your own tools. Do not start subagents or forks.',
    '- Do not converse or ask questions: nobody answers them.',
    '- If you change files, say exactly which.',
    '- Finish with a concise report (at most 500 words) that begins with "Scope:".',
    `</${forkMarker}>`,
    '',
    `Your directive: ${directive}`,
  ].join('\n');
}

/**
 * The fork child's starting conversation (SPEC §1.5): the parent's history including its whole
 * assistant message with every tool_use, then one user message with a tool_result per tool_use —
 * all with the same placeholder text — and this child's directive last. Siblings differ only in
 * that last block, so their request prefixes are byte-identical.
 */
export function buildForkedMessages(parentMessages: readonly MessageParam[], directive: string): MessageParam[] {
  const assistant = parentMessages[parentMessages.length - 1];
  if (!assistant || assistant.role !== 'assistant') {
    throw new Error('A fork starts from an assistant message with tool_use blocks; the conversation does not end with one.');
  }
  const results: ToolResultBlock[] = toolUsesOf(assistant.content).map((toolUse) => ({
    type: 'tool_result',
    tool_use_id: toolUse.id,
    content: forkPlaceholderResult,
  }));
  const directiveBlock: TextBlock = { type: 'text', text: forkDirective(directive) };
  const content: ContentBlock[] = [...results, directiveBlock];
  return [...parentMessages, { role: 'user', content }];
}

/** True when the conversation carries a fork directive: this agent is a fork and may not fork again. */
export function isForkConversation(messages: readonly MessageParam[]): boolean {
  const tag = `<${forkMarker}>`;
  return messages.some(
    (message) =>
      message.role === 'user' &&
      (typeof message.content === 'string'
        ? message.content.includes(tag)
        : message.content.some((block) => block.type === 'text' && block.text.includes(tag))),
  );
}
