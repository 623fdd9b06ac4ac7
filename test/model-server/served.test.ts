import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { modelServerControl } from '../../src/model-server/control-client';
import type { ModelServer, RecordedRequest } from '../../src/model-server/server';
import { clientFor, postRaw, startTestServer } from './helpers';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Nine two-byte characters: sent as three deltas of 'ééé' (6 bytes, 2 tokens each; 1 if counted by characters).
const replyText = 'é'.repeat(9);
// The reply's usage.output_tokens: ceil(bytes of {"type":"text","text":"ééééééééé"} / 4) = ceil(43 / 4).
const wholeOutputTokens = 11;
const request = {
  model: 'claude-test-tiny',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'hello there' }],
};

async function start(turn: Record<string, unknown> = {}): Promise<Anthropic> {
  const started = await startTestServer({
    behaviour: { kind: 'scripted', scenario: { agents: [], default: [{ text: replyText, ...turn }] } },
  });
  server = started.server;
  return started.client;
}

const onlyRecord = (): RecordedRequest => {
  const log = server!.requests();
  expect(log).toHaveLength(1);
  return log[0]!;
};

const inputOf = (record: RecordedRequest) => ({
  inputTokens: record.usage!.input_tokens,
  cacheCreationInputTokens: record.usage!.cache_creation_input_tokens,
  cacheReadInputTokens: record.usage!.cache_read_input_tokens,
});

describe('served tokens per messages request', () => {
  it('a complete stream served its usage, cache writes and reads included', async () => {
    const client = await start();
    const cached = {
      ...request,
      system: [{ type: 'text' as const, text: 'x'.repeat(400), cache_control: { type: 'ephemeral' as const } }],
    };
    const written = await client.messages.stream(cached).finalMessage();
    const read = await client.messages.stream(cached).finalMessage();
    expect(written.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(read.usage.cache_read_input_tokens).toBeGreaterThan(0);
    const served = server!.requests().map((record) => record.served);
    expect(served).toEqual(
      [written, read].map((message) => ({
        inputTokens: message.usage.input_tokens,
        cacheCreationInputTokens: message.usage.cache_creation_input_tokens,
        cacheReadInputTokens: message.usage.cache_read_input_tokens,
        outputTokens: wholeOutputTokens,
        complete: true,
      })),
    );
  });

  it('a cut stream served its input and the output of the two deltas written', async () => {
    const client = await start();
    server!.injectFault({ kind: 'stream-cut' });
    await expect(client.messages.stream(request).finalMessage()).rejects.toThrow();
    const record = onlyRecord();
    expect(record.served).toEqual({ ...inputOf(record), outputTokens: 4, complete: false });
    expect(record.served!.inputTokens).toBeGreaterThan(0);
  });

  it('a stream the client aborted served the output of the deltas written before the abort', async () => {
    const client = await start({ eventDelayMs: 150 });
    const controller = new AbortController();
    const stream = client.messages.stream(request, { signal: controller.signal });
    let deltas = 0;
    stream.on('text', () => {
      deltas += 1;
      if (deltas === 2) controller.abort();
    });
    await expect(stream.finalMessage()).rejects.toThrow();
    await vi.waitFor(() => expect(server!.requests()[0]!.abortedAt).toBeDefined());
    const record = onlyRecord();
    expect(record.served).toEqual({ ...inputOf(record), outputTokens: 4, complete: false });
  });

  it('a stream that stalls before message_delta served what it wrote', async () => {
    const client = await start({ stallAfterEvents: 4 });
    const controller = new AbortController();
    const stream = client.messages.stream(request, { signal: controller.signal });
    stream.on('text', () => controller.abort());
    await expect(stream.finalMessage()).rejects.toThrow();
    const record = onlyRecord();
    // message_start, content_block_start, ping, one delta.
    expect(record.served).toEqual({ ...inputOf(record), outputTokens: 2, complete: false });
  });

  it('a JSON reply served its usage; a JSON body cut half way served its input only', async () => {
    const client = await start();
    const message = await client.messages.create(request);
    server!.injectFault({ kind: 'stream-cut' });
    await expect(client.messages.create(request)).rejects.toThrow();
    const [whole, cut] = server!.requests();
    expect(whole!.served).toEqual({
      inputTokens: message.usage.input_tokens,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
      outputTokens: wholeOutputTokens,
      complete: true,
    });
    expect(cut!.served).toEqual({ ...inputOf(cut!), outputTokens: 0, complete: false });
  });

  it('a request that failed before message_start served nothing', async () => {
    const client = await start();
    const nothing = {
      inputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
      outputTokens: 0,
      complete: false,
    };
    server!.injectFault({ kind: '500' });
    await expect(client.messages.stream(request).finalMessage()).rejects.toThrow();
    server!.injectFault({ kind: 'overloaded-sse' });
    await expect(client.messages.stream(request).finalMessage()).rejects.toThrow();
    expect(
      (await postRaw(server!, '/v1/messages', JSON.stringify({ model: 'claude-test-tiny', messages: [] }))).status,
    ).toBe(400);
    expect(server!.requests().map((record) => record.served)).toEqual([nothing, nothing, nothing]);
    expect(server!.requests()[1]!.status).toBe(200);
  });
});

describe('GET /_control/usage', () => {
  it('sums served tokens in all and per agent id, leaving count_tokens and control calls out', async () => {
    const client = await start();
    const alpha = clientFor(server!, { headers: { 'x-subagents-agent-id': 'alpha' } });
    const hostile = clientFor(server!, { headers: { 'x-subagents-agent-id': '__proto__' } });
    const first = await alpha.messages.create(request);
    server!.injectFault({ kind: 'stream-cut' });
    await expect(alpha.messages.stream(request).finalMessage()).rejects.toThrow();
    const third = await hostile.messages.stream(request).finalMessage();
    const fourth = await client.messages.create(request);
    await client.messages.countTokens({ model: request.model, messages: request.messages });
    const input = first.usage.input_tokens;
    expect([third, fourth].map((message) => message.usage.input_tokens)).toEqual([input, input]);

    const report = await modelServerControl(server!.url).usage();
    const totals = (requests: number, outputTokens: number) => ({
      requests,
      inputTokens: requests * input,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
      outputTokens,
      totalTokens: requests * input + outputTokens,
    });
    expect(report).toEqual({
      ...totals(4, wholeOutputTokens + 4 + wholeOutputTokens + wholeOutputTokens),
      byAgent: { alpha: totals(2, wholeOutputTokens + 4), ['__proto__']: totals(1, wholeOutputTokens) },
    });
    expect(Object.keys(report.byAgent)).toEqual(['alpha', '__proto__']);
    expect(server!.usage()).toEqual(report);
    // The request log keeps working and carries the same records.
    const logged = await modelServerControl(server!.url).requests();
    expect(logged.filter((record) => record.served).map((record) => record.served!.outputTokens)).toEqual([
      wholeOutputTokens,
      4,
      wholeOutputTokens,
      wholeOutputTokens,
    ]);
  });
});
