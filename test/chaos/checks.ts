// The checks of a finished run: tool_use/tool_result pairing, Bash markers, and the transcript
// compared with the model server's request log, the workflow history, and a second read.
import type { ContentBlock, MessageParam } from '../../src/shared/model/messages';
import type { AgentRequest } from './request-log';

/** JSON with sorted keys, so equal values give equal strings. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

function blocksOf(content: MessageParam['content'] | ContentBlock[]): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * A message as compared: string content becomes one text block and `cache_control` is dropped,
 * the only two things the request builder changes (it puts cache breakpoints on two messages).
 */
export function normalizeMessage(message: MessageParam): string {
  const blocks = blocksOf(message.content).map((block) => {
    const { cache_control: _cacheControl, ...rest } = block as ContentBlock & { cache_control?: unknown };
    return rest;
  });
  return canonical({ role: message.role, content: blocks });
}

export const normalizeContent = (content: ContentBlock[]): string => normalizeMessage({ role: 'assistant', content });

/** tool_use blocks without exactly one tool_result, plus tool_results answering no tool_use. */
export function lostToolResults(messages: readonly MessageParam[]): string[] {
  const uses: string[] = [];
  const results = new Map<string, number>();
  for (const message of messages) {
    for (const block of blocksOf(message.content)) {
      if (block.type === 'tool_use') uses.push(block.id);
      if (block.type === 'tool_result') results.set(block.tool_use_id, (results.get(block.tool_use_id) ?? 0) + 1);
    }
  }
  const problems = uses
    .filter((id) => results.get(id) !== 1)
    .map((id) => `tool_use ${id} has ${results.get(id) ?? 0} tool_results`);
  const orphans = [...results.keys()]
    .filter((id) => !uses.includes(id))
    .map((id) => `tool_result for unknown tool_use ${id}`);
  return [...problems, ...orphans];
}

/** Text of every tool_result of the conversation. */
export function toolResultTexts(messages: readonly MessageParam[]): string[] {
  return messages.flatMap((message) =>
    blocksOf(message.content)
      .filter((block) => block.type === 'tool_result')
      .map((block) =>
        typeof block.content === 'string'
          ? block.content
          : block.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('\n'),
      ),
  );
}

export interface LogComparison {
  mismatches: string[];
  /** Requests that repeat an earlier request of the same turn byte for byte: retries after a cut call. */
  markedRetries: number;
}

/**
 * The conversation against what the agent sent the model (the server's log of its requests):
 * 1. requests for the same turn are byte-identical (a differing one is a mismatch; an identical one a marked retry);
 * 2. every request's `messages` is a prefix of the conversation (normalized as above);
 * 3. the requested turns are exactly 0..A-1 for A assistant messages;
 * 4. the conversation is the last request's messages plus exactly one assistant message (its answer):
 *    nothing the agent sent was lost afterwards, and nothing appeared that the model never saw.
 */
export function compareWithRequestLog(
  messages: readonly MessageParam[],
  requests: readonly AgentRequest[],
): LogComparison {
  const mismatches: string[] = [];
  let markedRetries = 0;
  const conversation = messages.map(normalizeMessage);
  const assistants = messages.filter((message) => message.role === 'assistant').length;
  if (requests.length === 0) return { mismatches: ['no model request in the log'], markedRetries };
  const firstByTurn = new Map<number, AgentRequest>();
  for (const request of requests) {
    const first = firstByTurn.get(request.turnIndex);
    if (!first) {
      firstByTurn.set(request.turnIndex, request);
      continue;
    }
    if (first.rawBody === request.rawBody) markedRetries += 1;
    else
      mismatches.push(
        `turn ${request.turnIndex}: a retry sent a different request than the first call (seq ${first.seq} vs ${request.seq})`,
      );
  }
  for (const [turn, request] of firstByTurn) {
    const sent = (JSON.parse(request.rawBody) as { messages: MessageParam[] }).messages.map(normalizeMessage);
    const differs = sent.findIndex((message, index) => conversation[index] !== message);
    if (sent.length > conversation.length)
      mismatches.push(`turn ${turn}: sent ${sent.length} messages, the conversation has only ${conversation.length}`);
    else if (differs >= 0) mismatches.push(`turn ${turn}: sent message ${differs} differs from the conversation's`);
  }
  const turns = [...firstByTurn.keys()].sort((a, b) => a - b);
  if (turns.length !== assistants || turns.some((turn, index) => turn !== index)) {
    mismatches.push(`requested turns [${turns.join(',')}] but the conversation has ${assistants} assistant messages`);
  }
  const last = firstByTurn.get(turns[turns.length - 1]!)!;
  const lastSent = (JSON.parse(last.rawBody) as { messages: unknown[] }).messages.length;
  if (conversation.length !== lastSent + 1 || messages[messages.length - 1]?.role !== 'assistant') {
    mismatches.push(
      `the conversation has ${conversation.length} messages; the last request sent ${lastSent} (expected one answer after it)`,
    );
  }
  return { mismatches, markedRetries };
}

/** The conversation's assistant messages against the completed callModel results in the history (all runs, in order). */
export function compareWithHistory(
  messages: readonly MessageParam[],
  modelResults: readonly { content: ContentBlock[] }[],
): string[] {
  const assistants = messages
    .filter((message) => message.role === 'assistant')
    .map((message) => normalizeMessage(message));
  const produced = modelResults
    .filter((result) => result.content.length > 0)
    .map((result) => normalizeContent(result.content));
  if (assistants.length !== produced.length)
    return [
      `${assistants.length} assistant messages but ${produced.length} completed model calls with content in the history`,
    ];
  const differs = produced.findIndex((content, index) => assistants[index] !== content);
  return differs >= 0 ? [`assistant message ${differs} differs from the history's model call result`] : [];
}

/** Start lines per Bash marker in a markers file. */
export function bashStartCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\S+) start$/.exec(line.trim());
    if (match) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  }
  return counts;
}
