/** Server-sent events in the API's order (reference §4), and writing them to a response. */
import type { ServerResponse } from 'node:http';
import type { ApiMessage, OutputBlock } from './reply';

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Splits text into `parts` roughly equal pieces without breaking a surrogate pair. */
export function splitText(text: string, parts: number): string[] {
  const characters = Array.from(text);
  const size = Math.max(1, Math.ceil(characters.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size)
    pieces.push(characters.slice(start, start + size).join(''));
  return pieces;
}

function blockEvents(block: OutputBlock, index: number): { start: SseEvent; deltas: SseEvent[] } {
  const delta = (payload: Record<string, unknown>): SseEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: payload },
  });
  const start = (contentBlock: Record<string, unknown>): SseEvent => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block: contentBlock },
  });
  switch (block.type) {
    case 'text':
      return {
        start: start({ type: 'text', text: '' }),
        deltas: splitText(block.text, 3).map((text) => delta({ type: 'text_delta', text })),
      };
    case 'tool_use':
      return {
        start: start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        // The API's first input_json_delta is often empty; clients must cope.
        deltas: ['', ...splitText(JSON.stringify(block.input), 3)].map((partial) =>
          delta({ type: 'input_json_delta', partial_json: partial }),
        ),
      };
    case 'server_tool_use':
      return {
        start: start({ type: 'server_tool_use', id: block.id, name: block.name, input: {} }),
        deltas: ['', ...splitText(JSON.stringify(block.input), 2)].map((partial) =>
          delta({ type: 'input_json_delta', partial_json: partial }),
        ),
      };
    case 'web_search_tool_result':
      // The API sends the whole result in content_block_start, with no deltas.
      return {
        start: start({ type: 'web_search_tool_result', tool_use_id: block.tool_use_id, content: block.content }),
        deltas: [],
      };
    case 'thinking':
      return {
        start: start({ type: 'thinking', thinking: '', signature: '' }),
        deltas: [
          ...splitText(block.thinking, 3).map((thinking) => delta({ type: 'thinking_delta', thinking })),
          delta({ type: 'signature_delta', signature: block.signature }),
        ],
      };
  }
}

/** message_start, then per block start (+ ping after the first) / deltas / stop, message_delta, message_stop. */
export function messageEvents(message: ApiMessage): SseEvent[] {
  const ping: SseEvent = { event: 'ping', data: { type: 'ping' } };
  const { usage } = message;
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
  ];
  if (message.content.length === 0) events.push(ping);
  message.content.forEach((block, index) => {
    const { start, deltas } = blockEvents(block, index);
    events.push(start);
    if (index === 0) events.push(ping);
    events.push(...deltas, { event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null },
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          output_tokens: usage.output_tokens,
          ...(usage.server_tool_use ? { server_tool_use: usage.server_tool_use } : {}),
        },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

export const formatEvent = (event: SseEvent): string =>
  `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;

/** Writes the event-stream head (the headers go out now: the response has started). */
export function startEventStream(response: ServerResponse, requestId: string): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  response.flushHeaders();
}

/** How {@link writeMessageStream} sends: whole, cut, slowly, or stalling. */
export interface StreamOptions {
  /** Send the first events only, then destroy the socket (the stream-cut fault). */
  cut?: boolean;
  /** Pause before each event after message_start. */
  eventDelayMs?: number;
  /** Send this many events, then hold the connection open sending nothing until the client leaves. */
  stallAfterEvents?: number;
  /** Called after each event is written (the served-token accounting). */
  onWritten?: (event: SseEvent) => void;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the whole stream, or (see {@link StreamOptions}) part of it. */
export async function writeMessageStream(
  response: ServerResponse,
  message: ApiMessage,
  options: StreamOptions = {},
): Promise<void> {
  const events = messageEvents(message);
  const { cut = false, eventDelayMs = 0, stallAfterEvents, onWritten } = options;
  // message_start, content_block_start, ping and two deltas: enough for a client to have a partial message.
  let sent = cut ? events.slice(0, Math.min(events.length - 2, 5)) : events;
  if (stallAfterEvents !== undefined) sent = sent.slice(0, Math.min(stallAfterEvents, events.length - 1));
  for (const [index, event] of sent.entries()) {
    if (index > 0 && eventDelayMs > 0) await pause(eventDelayMs);
    if (response.destroyed) return;
    response.write(formatEvent(event));
    onWritten?.(event);
  }
  if (stallAfterEvents !== undefined) {
    if (!response.destroyed) await new Promise((resolve) => response.once('close', resolve));
    return;
  }
  if (!cut) {
    response.end();
    return;
  }
  // Time for the client to read what was sent: a stream that errors drops the chunks its reader had not taken yet.
  await pause(250);
  response.socket?.destroy();
  response.destroy();
}
