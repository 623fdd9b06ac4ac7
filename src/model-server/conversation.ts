/** What behaviours need to know about a request: who is asking, which turn, what was said last. */
import type { MessagesRequest, RequestBlock, RequestContext, RequestMessage } from './request-types';
import { agentHeaderNames, decodeHeaderValue } from '../shared/model/agent-headers';
import { summarisedTurnsIn } from './compaction';
import { isRecord } from './tokens';

/** The text of a tool_result's content (a string or text blocks). */
export function toolResultText(block: RequestBlock): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .filter((inner) => inner.type === 'text')
    .map((inner) => String(inner.text))
    .join('\n');
}

/** Joined text blocks of one message. */
export const messageText = (message: RequestMessage): string =>
  message.content
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('\n');

function latestUserText(messages: RequestMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    const text = messageText(message);
    if (text !== '') return text;
  }
  return '';
}

function lastToolResultText(messages: RequestMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const results = messages[index]?.content.filter((block) => block.type === 'tool_result') ?? [];
    const last = results.at(-1);
    if (last) return toolResultText(last);
  }
  return '';
}

/** Builds the context from a validated request and the lower-cased request headers. */
export function buildContext(request: MessagesRequest, headers: Record<string, string>): RequestContext {
  const context: RequestContext = {
    request,
    systemText: request.system.map((block) => String(block.text ?? '')).join('\n'),
    latestUserText: latestUserText(request.messages),
    lastToolResultText: lastToolResultText(request.messages),
    turnIndex:
      summarisedTurnsIn(request.messages) + request.messages.filter((message) => message.role === 'assistant').length,
    compaction: headers[agentHeaderNames.purpose] === 'compaction',
  };
  const read = (name: string) => (headers[name] === undefined ? undefined : decodeHeaderValue(headers[name]));
  const agentId = read(agentHeaderNames.id);
  const agentType = read(agentHeaderNames.type);
  const agentName = read(agentHeaderNames.name);
  if (agentId) context.agentId = agentId;
  if (agentType) context.agentType = agentType;
  if (agentName) context.agentName = agentName;
  return context;
}

/** Replaces `{{last_tool_result}}`, `{{last_user_text}}` and `{{agent_id}}`. */
export function substitutePlaceholders(text: string, context: RequestContext): string {
  return (
    text
      // Function replacers: a `$&` inside a tool result must come through literally.
      .replaceAll('{{last_tool_result}}', () => context.lastToolResultText)
      .replaceAll('{{last_user_text}}', () => context.latestUserText)
      .replaceAll('{{agent_id}}', () => context.agentId ?? '')
  );
}

/** Applies substitutePlaceholders to every string inside a JSON value. */
export function substituteDeep(value: unknown, context: RequestContext): unknown {
  if (typeof value === 'string') return substitutePlaceholders(value, context);
  if (Array.isArray(value)) return value.map((item) => substituteDeep(item, context));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteDeep(item, context)]));
  return value;
}
