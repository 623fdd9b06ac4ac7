import { compactedConversationText, droppedConversationText } from '../../shared/model/compaction';
import type { MessageParam, TextBlock } from '../../shared/model/messages';
import { forkMarker } from '../../shared/agents/fork-layout';

/** Where a compaction cuts a conversation: always at an assistant message, so tool pairs stay whole (docs/architecture.md). */
export interface CompactionPlan {
  cut: number;
  /** Text blocks carried verbatim into the first message of the compacted conversation. */
  pinned: TextBlock[];
}

const textBlocks = (message: MessageParam | undefined): TextBlock[] =>
  !message || typeof message.content === 'string'
    ? message && typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : []
    : message.content.filter((block): block is TextBlock => block.type === 'text');

/** Plans a compaction keeping the recent turns that fit in `keepTokens`; undefined when nothing to summarise. */
export function planCompaction(
  messages: readonly MessageParam[],
  tokensOf: (from: number, to: number) => number,
  keepTokens: number,
): CompactionPlan | undefined {
  if (messages.length < 2) return undefined;
  let cut: number | undefined;
  for (let index = messages.length - 1; index >= 1; index--) {
    if (tokensOf(index, messages.length) > keepTokens) break;
    if (messages[index]!.role === 'assistant') cut = index;
  }
  if (cut === undefined) {
    // Not even the last turn fits: summarise everything, or keep only a final answer.
    const last = messages.length - 1;
    cut = messages[last]!.role === 'user' ? messages.length : last;
  }
  if (cut < 1) return undefined;
  const pinned = textBlocks(messages[0]).filter((block) => block.text.startsWith('<system-reminder>'));
  const forkTag = `<${forkMarker}>`;
  for (const message of messages.slice(0, cut)) {
    if (message.role !== 'user') continue;
    for (const block of textBlocks(message))
      if (block.text.includes(forkTag) && !pinned.includes(block)) pinned.push(block);
  }
  return { cut, pinned: pinned.map((block) => ({ type: 'text', text: block.text })) };
}

/** The first message of the compacted conversation: the pinned blocks, then the summary and how to go on. */
export function compactedOpening(plan: CompactionPlan, keptMessages: number, summary: string): MessageParam {
  return {
    role: 'user',
    content: [...plan.pinned, { type: 'text', text: compactedConversationText(summary, keptMessages) }],
  };
}

/** The first message when no summary could be made: the pinned blocks and a notice of what was dropped. */
export function droppedOpening(plan: CompactionPlan, reason: string): MessageParam {
  return { role: 'user', content: [...plan.pinned, { type: 'text', text: droppedConversationText(plan.cut, reason) }] };
}
