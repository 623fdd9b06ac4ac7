// Deterministic compaction summaries that record the turns they replace, so scripted turn indices survive compaction.
import type { BehaviourResult } from './behaviour-result';
import type { RequestContext } from './request-types';
import type { RequestMessage } from './request-types';

/** Joined text blocks of one message (conversation.ts has the same; kept here so neither imports the other). */
const messageText = (message: RequestMessage): string =>
  message.content
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('\n');

const summarisedTurnsPattern = /Summarised turns: (\d+)\b/;
const primaryRequestPattern = /^1\. Primary Request and Intent: (.*)$/m;

/** The assistant turns an earlier compaction summary (in the first user message) stands for; 0 without one. */
export function summarisedTurnsIn(messages: readonly RequestMessage[]): number {
  const first = messages[0];
  if (!first || first.role !== 'user') return 0;
  const match = summarisedTurnsPattern.exec(messageText(first));
  return match ? Number(match[1]) : 0;
}

/** First characters of a text on one line. */
function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The summary of a compaction request; it uses the request only, so a retry gets the same text. */
export function compactionReply(context: RequestContext): BehaviourResult {
  const messages = context.request.messages;
  const assistants = messages.filter((message) => message.role === 'assistant');
  const summarised = summarisedTurnsIn(messages) + assistants.length;
  const tools = new Map<string, number>();
  for (const message of assistants) {
    for (const block of message.content)
      if (block.type === 'tool_use') tools.set(String(block.name), (tools.get(String(block.name)) ?? 0) + 1);
  }
  const firstUser = messages[0]
    ? messageText(messages[0]).replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    : '';
  // Carry the earlier summary's request forward, so prompt-matching scenarios survive repeated compactions.
  const request = primaryRequestPattern.exec(firstUser)?.[1] ?? clip(firstUser, 300);
  const lastAssistant =
    [...assistants]
      .reverse()
      .map(messageText)
      .find((text) => text.trim() !== '') ?? '';
  const summary = [
    '<summary>',
    `Summarised turns: ${summarised}`,
    `1. Primary Request and Intent: ${request || '(none)'}`,
    `2. Tools used: ${[...tools].map(([name, count]) => `${name} x${count}`).join(', ') || '(none)'}`,
    `3. Current Work: ${clip(lastAssistant, 300) || '(none)'}`,
    '</summary>',
  ].join('\n');
  return {
    reply: { content: [{ type: 'text', text: summary }], stopReason: 'end_turn' },
    agentKey: context.agentId ?? 'compaction',
    turnIndex: context.turnIndex,
  };
}
