// Turns cut at max_tokens: their tool calls are answered with an error, a cut answer continued a few times.
import { maxOutputContinuations } from '../../shared/protocol/limits';
import type { ContentBlock, MessageParam, ToolUseBlock } from '../../shared/model/messages';
import { buildToolResultMessage, textOf } from '../../shared/tools/tool-results';
import type { AgentParts } from '../loop/agent-parts';
import { withDelivered } from '../tools/hook-events';

/** The user message that asks the model to go on with a cut answer. */
export const continuationPrompt =
  'Your last response was cut off at the output limit. Continue exactly where it stopped, mid-sentence if need be: ' +
  'no apology, no recap of what you already wrote. If much remains, finish it in smaller pieces.';

/** What a cut tool call is answered with. */
export function cutToolCallText(maxOutputTokens: number): string {
  return (
    `Not run: your response reached the output limit (max_tokens ${maxOutputTokens}) before it was complete, so this tool call ` +
    'may be cut short and nothing was executed. Split the work into smaller steps: e.g. write a large file as a short Write ' +
    'followed by Edits that add the rest, and make fewer or smaller tool calls per response.'
  );
}

/** What to do with a cut turn. */
export type CutOffDecision =
  { type: 'refuse_tools'; text: string } | { type: 'continue' } | { type: 'give_up'; text: string };

function isContinuationRequest(message: MessageParam | undefined): boolean {
  if (!message || message.role !== 'user' || typeof message.content === 'string') return false;
  const first = message.content[0];
  return first?.type === 'text' && first.text === continuationPrompt;
}

/** The text of an answer given across continuations, ending with `lastText` (`lastAppended`: already in messages). */
export function continuedText(messages: readonly MessageParam[], lastText: string, lastAppended: boolean): string {
  const parts = [lastText];
  let index = messages.length - (lastAppended ? 2 : 1);
  while (isContinuationRequest(messages[index]) && messages[index - 1]?.role === 'assistant') {
    parts.unshift(textOf(messages[index - 1]!.content));
    index -= 2;
  }
  return parts.join('');
}

/** How many continuation requests in a row precede the end of the conversation. */
function continuationsSoFar(messages: readonly MessageParam[]): number {
  let count = 0;
  for (let index = messages.length - 2; isContinuationRequest(messages[index]); index -= 2) count += 1;
  return count;
}

/** Decides about a turn cut at max_tokens, whose non-empty response is the conversation's last message. */
export function decideCutOffTurn(
  messages: readonly MessageParam[],
  content: readonly ContentBlock[],
  maxOutputTokens: number,
): CutOffDecision {
  if (content.some((block) => block.type === 'tool_use'))
    return { type: 'refuse_tools', text: cutToolCallText(maxOutputTokens) };
  const continuations = continuationsSoFar(messages);
  const text = continuedText(messages, textOf([...content]), content.length > 0);
  if (content.length === 0 || continuations >= maxOutputContinuations) return { type: 'give_up', text };
  return { type: 'continue' };
}

/** The outcome of a cut turn for the query loop: go on (tools refused, or continuation asked), or end truncated. */
export type CutOffOutcome = { type: 'tools_done' } | { type: 'truncated'; text: string };

/** Applies the decision to the agent's conversation: every tool_use answered, or the continuation request appended. */
export function handleCutOffTurn(
  agent: AgentParts,
  toolUses: readonly ToolUseBlock[],
  content: readonly ContentBlock[],
  maxOutputTokens: number,
): CutOffOutcome | Promise<CutOffOutcome> {
  const { state, inbox } = agent;
  const decision = decideCutOffTurn(state.messages, content, maxOutputTokens);
  // Messages that came meanwhile pass UserPromptSubmit hooks first (a promise only when one runs).
  switch (decision.type) {
    case 'refuse_tools':
      return withDelivered(agent, inbox, (texts): CutOffOutcome => {
        state.append(buildToolResultMessage(toolUses, {}, decision.text, texts));
        return { type: 'tools_done' };
      });
    case 'continue':
      return withDelivered(agent, inbox, (texts): CutOffOutcome => {
        state.append({
          role: 'user',
          content: [continuationPrompt, ...texts].map((text) => ({ type: 'text' as const, text })),
        });
        return { type: 'tools_done' };
      });
    case 'give_up':
      return { type: 'truncated', text: decision.text };
  }
}
