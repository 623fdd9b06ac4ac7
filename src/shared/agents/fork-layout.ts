// A fork's first request: parent messages, sibling-identical placeholders, then its directive (docs/architecture.md).
import type { MessageParam } from '../model/messages';

/** The tag that wraps a fork's directive; finding it in an agent's history marks the agent as a fork. */
export const forkMarker = 'fork-boilerplate';

/** Index of the directive block in a fork's first user message; undefined for any other message. */
export function forkDirectiveIndex(message: MessageParam | undefined): number | undefined {
  if (!message || message.role !== 'user' || typeof message.content === 'string') return undefined;
  const index = message.content.length - 1;
  const last = message.content[index];
  if (index < 1 || last?.type !== 'text' || !last.text.startsWith(`<${forkMarker}>`)) return undefined;
  return message.content.slice(0, index).every((block) => block.type === 'tool_result') ? index : undefined;
}
