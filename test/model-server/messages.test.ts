import { afterEach, describe, expect, it } from 'vitest';
import type { ModelServer } from '../../src/model-server/server';
import { errorMessage, postRaw, startTestServer } from './helpers';

const scenario = {
  agents: [
    {
      match: {},
      turns: [
        {
          text: 'Let me look around the repository.',
          toolUses: [{ name: 'Glob', input: { pattern: '**/*.md', path: 'docs' } }],
        },
        { thinking: 'The glob found files.', text: 'Done: ünïcödé ✓ and emoji 🎉 survive chunking.' },
      ],
    },
  ],
};
const globTool = {
  name: 'Glob',
  description: 'Find files',
  input_schema: { type: 'object' as const, properties: { pattern: { type: 'string' } } },
};
const firstTurn = {
  model: 'claude-test-tiny',
  max_tokens: 1024,
  tools: [globTool],
  messages: [{ role: 'user' as const, content: 'What is here?' }],
};

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  const started = await startTestServer({ behaviour: { kind: 'scripted', scenario } });
  server = started.server;
  return started;
}

/** The SSE event names and data of a raw streamed response. */
async function rawStream(
  target: ModelServer,
  body: object,
): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const response = await fetch(`${target.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'test', 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  return text
    .trim()
    .split('\n\n')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return {
        event: (eventLine ?? '').replace(/^event: /, ''),
        data: JSON.parse((dataLine ?? '').replace(/^data: /, '')) as Record<string, unknown>,
      };
    });
}

describe('POST /v1/messages', () => {
  it('answers JSON with text, a tool_use, usage and a request-id', async () => {
    const { client } = await start();
    const { data: message, response } = await client.messages.create(firstTurn).withResponse();
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('request-id')).toMatch(/^req_011C\w{22}$/);
    expect(message.id).toMatch(/^msg_01\w{22}$/);
    expect(message.role).toBe('assistant');
    expect(message.model).toBe('claude-test-tiny');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(2);
    expect(message.content[0]).toEqual({ type: 'text', text: 'Let me look around the repository.' });
    expect(message.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'Glob',
      input: { pattern: '**/*.md', path: 'docs' },
    });
    expect((message.content[1] as { id: string }).id).toMatch(/^toolu_01\w{22}$/);
    expect(message.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('streams events that finalMessage() assembles into the same message', async () => {
    const { client } = await start();
    const json = await client.messages.create(firstTurn);
    const streamed = await client.messages.stream(firstTurn).finalMessage();
    expect(streamed.content).toEqual(json.content);
    expect(streamed.stop_reason).toBe('tool_use');
    expect(streamed.usage.input_tokens).toBe(json.usage.input_tokens);
    expect(streamed.usage.output_tokens).toBe(json.usage.output_tokens);
  });

  it('streams thinking (with signature) and multi-byte text intact', async () => {
    const { client } = await start();
    const first = await client.messages.create(firstTurn);
    const toolUse = first.content[1] as { id: string };
    const secondTurn = {
      ...firstTurn,
      messages: [
        ...firstTurn.messages,
        { role: 'assistant' as const, content: first.content },
        {
          role: 'user' as const,
          content: [{ type: 'tool_result' as const, tool_use_id: toolUse.id, content: 'docs/a.md' }],
        },
      ],
    };
    const streamed = await client.messages.stream(secondTurn).finalMessage();
    expect(streamed.stop_reason).toBe('end_turn');
    expect(streamed.content[0]).toMatchObject({ type: 'thinking', thinking: 'The glob found files.' });
    expect((streamed.content[0] as { signature: string }).signature.length).toBeGreaterThan(10);
    expect(streamed.content[1]).toMatchObject({ type: 'text', text: 'Done: ünïcödé ✓ and emoji 🎉 survive chunking.' });
  });

  it('sends SSE events in the API order', async () => {
    await start();
    const events = await rawStream(server!, firstTurn);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const snapshot = events[0]!.data.message as {
      usage: Record<string, unknown>;
      content: unknown[];
      stop_reason: unknown;
    };
    expect(snapshot.content).toEqual([]);
    expect(snapshot.stop_reason).toBeNull();
    expect(snapshot.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 1,
    });
    const toolDeltas = events
      .filter((event) => event.event === 'content_block_delta' && event.data.index === 1)
      .map((event) => (event.data.delta as { partial_json: string }).partial_json);
    expect(toolDeltas[0]).toBe('');
    expect(JSON.parse(toolDeltas.join(''))).toEqual({ pattern: '**/*.md', path: 'docs' });
    expect(events.at(-2)!.data).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null } });
  });

  it('yields raw stream events through create({ stream: true })', async () => {
    const { client } = await start();
    const stream = await client.messages.create({ ...firstTurn, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).not.toContain('ping');
  });

  it("counts tokens as ceil(bytes / 4) of each block's JSON", async () => {
    const { client } = await start();
    // {"type":"text","text":"hi"} is 27 bytes → 7 tokens.
    const counted = await client.messages.countTokens({
      model: 'claude-test-tiny',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(counted).toEqual({ input_tokens: 7 });
    const withSystem = await client.messages.countTokens({
      model: 'claude-test-tiny',
      system: 'abcd',
      messages: [{ role: 'user', content: 'hi' }],
    });
    // {"type":"text","text":"abcd"} is 29 bytes → 8 tokens.
    expect(withSystem.input_tokens).toBe(15);
  });

  it('answers 404 with the error body for unknown paths and methods', async () => {
    await start();
    const unknown = await postRaw(server!, '/v1/complete', '{}');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: 'Not Found' } });
    expect((unknown.json as { request_id: string }).request_id).toBe(unknown.headers.get('request-id'));
    const get = await fetch(`${server!.url}/v1/messages`, { headers: { 'x-api-key': 'test' } });
    expect(get.status).toBe(404);
    expect(errorMessage(await get.json())).toBe('Not Found');
  });

  it('records every request with its raw body bytes, status, agent key and usage', async () => {
    const { client } = await start();
    const body =
      '{ "model":"claude-test-tiny",\n  "max_tokens": 64, "messages":[{"role":"user","content":"héllo \\u00e9 🎉"}] }';
    const raw = await postRaw(server!, '/v1/messages', body, {
      'x-api-key': 'test',
      'x-subagents-agent-id': 'agent-7',
    });
    expect(raw.status).toBe(200);
    await client.messages.create(firstTurn);
    const log = server!.requests();
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/messages',
      status: 200,
      rawBody: body,
      agentKey: 'agent-7',
      turnIndex: 0,
    });
    expect(log[0]!.headers['x-subagents-agent-id']).toBe('agent-7');
    expect(log[0]!.headers['x-api-key']).toBe('[redacted]');
    expect(log[1]!.headers.authorization).toBe('[redacted]');
    expect(log[0]!.usage).toEqual((raw.json as { usage: unknown }).usage);
    expect(log[1]!.seq).toBe(2);
    expect(JSON.parse(log[1]!.rawBody)).toEqual(firstTurn);
    server!.clearRequests();
    expect(server!.requests()).toEqual([]);
  });

  it('echoes the latest user text in echo mode', async () => {
    const started = await startTestServer({ behaviour: { kind: 'echo' } });
    server = started.server;
    const message = await started.client.messages.create({
      model: 'claude-sonnet-5',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'say this back' },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'say this back' }]);
    expect(message.stop_reason).toBe('end_turn');
  });
});
