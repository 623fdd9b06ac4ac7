/**
 * How a fork's first request is laid out (docs/architecture.md, Spawning): the parent's messages,
 * then one user message of tool_result placeholders — byte-identical in every sibling — and the
 * fork's own directive last, wrapped in the fork marker.
 */
import type { MessageParam } from '../model/messages';

/** The tag that wraps a fork's directive; finding it in an agent's history marks the agent as a fork. */
export const forkMarker = 'fork-boilerplate';

/**
 * For a fork's first user message (placeholders, then the directive): the index of its directive
 * block, after which nothing is shared with sibling forks. Undefined for any other message.
 */
export function forkDirectiveIndex(message: MessageParam | undefined): number | undefined {
  if (!message || message.role !== 'user' || typeof message.content === 'string') return undefined;
  const index = message.content.length - 1;
  const last = message.content[index];
  if (index < 1 || last?.type !== 'text' || !last.text.startsWith(`<${forkMarker}>`)) return undefined;
  return message.content.slice(0, index).every((block) => block.type === 'tool_result') ? index : undefined;
}
