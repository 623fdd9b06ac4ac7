import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { BilledUsage } from '../../src/activities/billed-usage';
import { deltaOutputTokens } from '../../src/shared/model/streamed-output-tokens';

type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;

const messageStart = (usage: Record<string, unknown>): StreamEvent =>
  ({
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 0,
        output_tokens: 1,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        ...usage,
      },
    },
  }) as never;
const delta = (payload: Record<string, unknown>): StreamEvent =>
  ({ type: 'content_block_delta', index: 0, delta: payload }) as never;
const messageDelta = (usage: Record<string, unknown>): StreamEvent =>
  ({
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: {
      input_tokens: null,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      server_tool_use: null,
      output_tokens: 0,
      ...usage,
    },
  }) as never;

const tracked = (...events: StreamEvent[]): BilledUsage => {
  const usage = new BilledUsage();
  for (const event of events) usage.observe(event);
  return usage;
};

describe('deltaOutputTokens', () => {
  it('counts ceil(UTF-8 bytes / 4) of text, partial_json and thinking, and 0 for other deltas', () => {
    expect(deltaOutputTokens({ type: 'text_delta', text: 'abcde' })).toBe(2);
    // Nine characters, 18 bytes: counted by bytes, not characters.
    expect(deltaOutputTokens({ type: 'thinking_delta', thinking: 'é'.repeat(9) })).toBe(5);
    expect(deltaOutputTokens({ type: 'input_json_delta', partial_json: '' })).toBe(0);
    expect(deltaOutputTokens({ type: 'input_json_delta', partial_json: '{"a":1}' })).toBe(2);
    expect(deltaOutputTokens({ type: 'signature_delta', signature: 'x'.repeat(400) } as never)).toBe(0);
    expect(deltaOutputTokens({ type: 'citations_delta', text: 'not a text delta' })).toBe(0);
  });
});

describe('BilledUsage', () => {
  it('bills nothing before message_start, deltas included', () => {
    expect(tracked().billed()).toBeUndefined();
    expect(
      tracked(delta({ type: 'text_delta', text: 'abcdefgh' }), messageDelta({ output_tokens: 9 })).billed(),
    ).toBeUndefined();
  });

  it('bills message_start input fields and no output yet (its output_tokens: 1 is not generated output)', () => {
    expect(
      tracked(
        messageStart({ input_tokens: 21, cache_creation_input_tokens: 300, cache_read_input_tokens: 4000 }),
      ).billed(),
    ).toEqual({ inputTokens: 21, outputTokens: 0, cacheCreationInputTokens: 300, cacheReadInputTokens: 4000 });
    expect(tracked(messageStart({ input_tokens: 5 })).billed()).toEqual({
      inputTokens: 5,
      outputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
  });

  it('adds each delta received by the shared rule until the final usage comes', () => {
    const usage = tracked(
      messageStart({ input_tokens: 10 }),
      delta({ type: 'thinking_delta', thinking: 'é'.repeat(9) }),
      delta({ type: 'signature_delta', signature: 'sig'.repeat(50) }),
      delta({ type: 'text_delta', text: 'abcde' }),
      delta({ type: 'input_json_delta', partial_json: '' }),
      delta({ type: 'input_json_delta', partial_json: '{"a":1}' }),
    );
    expect(usage.billed()).toEqual({
      inputTokens: 10,
      outputTokens: 5 + 0 + 2 + 0 + 2,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
  });

  it('takes message_delta usage as final: its output, its input fields when present, its searches', () => {
    const usage = tracked(
      messageStart({ input_tokens: 10, cache_creation_input_tokens: 7, cache_read_input_tokens: 3 }),
      delta({ type: 'text_delta', text: 'abcdefgh' }),
      messageDelta({
        output_tokens: 40,
        input_tokens: 12,
        server_tool_use: { web_search_requests: 2, web_fetch_requests: 0 },
      }),
      delta({ type: 'text_delta', text: 'late text that adds nothing' }),
    );
    expect(usage.billed()).toEqual({
      inputTokens: 12,
      outputTokens: 40,
      cacheCreationInputTokens: 7,
      cacheReadInputTokens: 3,
      webSearchRequests: 2,
    });
  });

  it('answers a copy, so a caller cannot change what it has counted', () => {
    const usage = tracked(messageStart({ input_tokens: 10 }));
    usage.billed()!.inputTokens = 0;
    expect(usage.billed()!.inputTokens).toBe(10);
  });
});
