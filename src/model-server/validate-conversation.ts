/** Conversation-level rules: role order, non-empty content and tool_use/tool_result pairing (reference §1). */
import { invalidRequest } from './api-error';
import type { RequestBlock, RequestMessage } from './request-types';

/** Merges consecutive same-role turns as the API does, or (strict) rejects them; later errors index the merged list. */
export function normalizeRoles(messages: RequestMessage[], strictRoles: boolean): RequestMessage[] {
  if (strictRoles) {
    if (messages[0] && messages[0].role !== 'user')
      throw invalidRequest('messages: first message must use the "user" role');
    messages.forEach((message, index) => {
      if (index > 0 && messages[index - 1]?.role === message.role) {
        throw invalidRequest(
          `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`,
        );
      }
    });
    return messages;
  }
  const merged: RequestMessage[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role) last.content = [...last.content, ...message.content];
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}

function hasEmptyText(blocks: RequestBlock[]): boolean {
  return blocks.some(
    (block) =>
      (block.type === 'text' && block.text === '') ||
      (block.type === 'tool_result' && Array.isArray(block.content) && hasEmptyText(block.content as RequestBlock[])),
  );
}

const toolUseIdsOf = (message: RequestMessage | undefined): string[] =>
  message?.role === 'assistant'
    ? message.content.filter((block) => block.type === 'tool_use').map((block) => String(block.id))
    : [];

function checkOrphanResults(messages: RequestMessage[], index: number): void {
  const offered = new Set(toolUseIdsOf(messages[index - 1]));
  messages[index]?.content.forEach((block, blockIndex) => {
    if (block.type !== 'tool_result' || offered.has(String(block.tool_use_id))) return;
    throw invalidRequest(
      `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. ` +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });
}

function checkResultsFollow(messages: RequestMessage[], index: number): void {
  const ids = toolUseIdsOf(messages[index]);
  if (ids.length === 0) return;
  const next = messages[index + 1];
  const nextBlocks = next?.role === 'user' ? next.content : [];
  const answered = new Set(
    nextBlocks.filter((block) => block.type === 'tool_result').map((block) => String(block.tool_use_id)),
  );
  const missing = ids.filter((id) => !answered.has(id));
  if (missing.length > 0) {
    throw invalidRequest(
      `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  }
  const leading = new Set<string>();
  for (const block of nextBlocks) {
    if (block.type !== 'tool_result') break;
    leading.add(String(block.tool_use_id));
  }
  const notLeading = ids.filter((id) => !leading.has(id));
  if (notLeading.length > 0) {
    throw invalidRequest(
      `messages.${index + 1}: Did not find ${notLeading.length} tool_result block(s) at the beginning of this message. ` +
        'Messages following tool_use blocks must begin with a matching number of tool_result blocks.',
    );
  }
}

/** Throws the API's 400 for the first broken rule, scanning messages in order. */
export function validateConversation(messages: RequestMessage[]): void {
  messages.forEach((message, index) => {
    const isFinalAssistant = index === messages.length - 1 && message.role === 'assistant';
    if (message.content.length === 0 && !isFinalAssistant) {
      throw invalidRequest(
        `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
  });
  if (messages.some((message) => hasEmptyText(message.content)))
    throw invalidRequest('messages: text content blocks must be non-empty');
  messages.forEach((message, index) => {
    if (message.role === 'user') checkOrphanResults(messages, index);
    else checkResultsFollow(messages, index);
  });
}
