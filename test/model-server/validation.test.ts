import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ModelServerOptions } from '../../src/model-server/server';
import { clientFor, errorMessage, postRaw, serverPerTest } from './helpers';

const servers = serverPerTest();
const start = (options: ModelServerOptions = {}) => servers.start({ behaviour: { kind: 'echo' }, ...options });

/** POSTs a body and returns status and error message. */
async function send(
  body: unknown,
  headers?: Record<string, string>,
): Promise<{ status: number; message: string | undefined; json: unknown }> {
  const response = await postRaw(
    servers.current(),
    '/v1/messages',
    typeof body === 'string' ? body : JSON.stringify(body),
    headers,
  );
  return { status: response.status, message: errorMessage(response.json), json: response.json };
}

const base = { model: 'claude-test-tiny', max_tokens: 256 };
/** Sends `messages` with the base model and max_tokens. */
const sendMessages = (...messages: unknown[]) => send({ ...base, messages });
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
/** Sends 'go', an assistant Read call `toolu_a`, and then a user message of `content`. */
const sendAfterToolUse = (content: unknown[]) =>
  sendMessages(user('go'), assistant([toolUse('toolu_a')]), { role: 'user', content });

describe('request validation (400 invalid_request_error)', () => {
  it('accepts output_config.effort at a level the model takes, records it, and refuses others', async () => {
    await start();
    const messages = [user('go')];
    expect((await send({ ...base, messages, output_config: { effort: 'xhigh' } })).status).toBe(200);
    expect(
      (await send({ model: 'claude-opus-5', max_tokens: 256, messages, output_config: { effort: 'max' } })).status,
    ).toBe(200);
    expect(
      servers
        .current()
        .requests()
        .map((request) => request.effort),
    ).toEqual(['xhigh', 'max']);
    const unknown = await send({ ...base, messages, output_config: { effort: 'extreme' } });
    expect(unknown.status).toBe(400);
    expect(unknown.message).toBe("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh', 'max'");
    const tooHigh = await send({
      model: 'claude-opus-4-5',
      max_tokens: 256,
      messages,
      output_config: { effort: 'max' },
    });
    expect(tooHigh.message).toBe(
      "output_config.effort: 'max' is not supported by model claude-opus-4-5; supported values: low, medium, high",
    );
    const none = await send({ model: 'claude-haiku-4-5', max_tokens: 256, messages, output_config: { effort: 'low' } });
    expect(none.message).toMatch(
      /^output_config\.effort: 'low' is not supported by model claude-haiku-4-5; supported values: none/,
    );
    expect((await send({ ...base, messages, output_config: 'high' })).message).toBe(
      'output_config: Input should be a valid dictionary',
    );
    expect((await send({ ...base, messages, output_config: { effort: 'low', speed: 1 } })).message).toBe(
      'output_config.speed: Extra inputs are not permitted',
    );
  });

  it('rejects tool_use ids without a tool_result right after, listing the ids', async () => {
    await start();
    const result = await sendMessages(
      user('go'),
      assistant([toolUse('toolu_a'), toolUse('toolu_b')]),
      user('no results here'),
    );
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((result.json as { request_id: string }).request_id).toMatch(/^req_/);
    expect(result.message).toBe(
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('rejects a final assistant tool_use with nothing after it', async () => {
    await start();
    const result = await sendMessages(user('go'), assistant([toolUse('toolu_z')]));
    expect(result.message).toMatch(
      /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_z\./,
    );
  });

  it('rejects an orphan tool_result', async () => {
    await start();
    const result = await sendAfterToolUse([toolResult('toolu_a'), toolResult('toolu_ghost')]);
    expect(result.status).toBe(400);
    expect(result.message).toBe(
      'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_ghost. ' +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('rejects tool_results that are not at the start of the next message', async () => {
    await start();
    const result = await sendAfterToolUse([{ type: 'text', text: 'first some text' }, toolResult('toolu_a')]);
    expect(result.message).toBe(
      'messages.2: Did not find 1 tool_result block(s) at the beginning of this message. ' +
        'Messages following tool_use blocks must begin with a matching number of tool_result blocks.',
    );
  });

  it('accepts correctly paired tool_use / tool_result', async () => {
    await start();
    const result = await sendMessages(
      user('go'),
      { role: 'assistant', content: [{ type: 'text', text: 'reading' }, toolUse('toolu_a'), toolUse('toolu_b')] },
      {
        role: 'user',
        content: [toolResult('toolu_b'), toolResult('toolu_a'), { type: 'text', text: 'and continue' }],
      },
    );
    expect(result.status).toBe(200);
  });

  it('rejects empty messages except a final assistant prefill, and empty text blocks', async () => {
    await start();
    expect((await send({ ...base, messages: [user('')] })).message).toBe(
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    );
    expect((await sendMessages(user('a'), assistant([]), user('b'))).message).toBe(
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    );
    expect((await sendMessages(user('a'), assistant(''))).status).toBe(200);
    expect((await send({ ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] })).message).toBe(
      'messages: text content blocks must be non-empty',
    );
  });

  it('rejects more than 4 cache_control breakpoints', async () => {
    await start();
    const marked = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });
    const result = await send({
      ...base,
      system: [marked('s1'), marked('s2')],
      messages: [user([marked('a'), marked('b'), marked('c')])],
    });
    expect(result.status).toBe(400);
    expect(result.message).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('names missing required fields', async () => {
    await start();
    expect((await send({ model: 'claude-test-tiny', messages: [user('x')] })).message).toBe(
      'max_tokens: Field required',
    );
    expect((await send({ max_tokens: 10, messages: [user('x')] })).message).toBe('model: Field required');
    expect((await send({ ...base })).message).toBe('messages: Field required');
    expect((await send({ ...base, messages: [{ content: 'x' }] })).message).toBe('messages.0.role: Field required');
    expect((await send('{"model": ')).status).toBe(400);
  });

  it('rejects unknown fields at the top level and on messages, and duplicate tool names', async () => {
    await start();
    expect((await send({ ...base, agent_id: 'x', messages: [user('x')] })).message).toBe(
      'agent_id: Extra inputs are not permitted',
    );
    expect((await send({ ...base, messages: [{ role: 'user', content: 'x', id: 'm1' }] })).message).toBe(
      'messages.0.id: Extra inputs are not permitted',
    );
    const tool = { name: 'Read', input_schema: { type: 'object' } };
    expect((await send({ ...base, tools: [tool, tool], messages: [user('x')] })).message).toBe(
      'tools: Tool names must be unique.',
    );
    expect(
      (
        await send({
          ...base,
          temperature: 0.2,
          metadata: { user_id: 'u' },
          stop_sequences: ['END'],
          tools: [tool],
          messages: [user('x')],
        })
      ).status,
    ).toBe(200);
  });

  it('rejects cache_control on a thinking block', async () => {
    await start();
    const result = await sendMessages(
      user('think'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hm', signature: 'sig', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'ok' },
        ],
      },
      user('more'),
    );
    expect(result.message).toBe('messages.1.content.0.thinking.cache_control: Extra inputs are not permitted');
  });

  it('rejects a thinking budget not below max_tokens', async () => {
    await start();
    const result = await send({
      ...base,
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [user('x')],
    });
    expect(result.message).toMatch(/^`max_tokens` must be greater than `thinking.budget_tokens`\./);
  });
});

describe('roles', () => {
  it('merges consecutive same-role turns by default', async () => {
    await start();
    const result = await sendMessages(
      user('one'),
      user('two'),
      assistant([toolUse('toolu_a')]),
      user([toolResult('toolu_a')]),
      user('three'),
    );
    expect(result.status).toBe(200);
    expect(servers.current().requests()[0]!.turnIndex).toBe(1);
  });

  it('rejects them with the legacy messages when strictRoles is set', async () => {
    await start({ strictRoles: true });
    expect((await sendMessages(assistant('hi'), user('x'))).message).toBe(
      'messages: first message must use the "user" role',
    );
    expect((await sendMessages(user('a'), user('b'))).message).toBe(
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    );
  });
});

describe('authentication and models', () => {
  it('answers 401 without a key and with a wrong key', async () => {
    await start({ apiKey: 'right-key' });
    const missing = await send({ ...base, messages: [user('x')] }, {});
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    const error = await clientFor(servers.current(), { apiKey: 'wrong-key' })
      .messages.create({ ...base, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).status).toBe(401);
    const ok = await clientFor(servers.current(), { apiKey: 'right-key' }).messages.create({
      ...base,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(ok.content).toEqual([{ type: 'text', text: 'x' }]);
  });

  it('accepts x-api-key as well as a Bearer token', async () => {
    await start();
    expect((await send({ ...base, messages: [user('x')] }, { 'x-api-key': 'k' })).status).toBe(200);
    expect((await send({ ...base, messages: [user('x')] }, { authorization: 'Bearer k' })).status).toBe(200);
  });

  it('answers 404 not_found_error for an unknown model (after validation of fields)', async () => {
    const { client } = await start();
    const error = await client.messages
      .create({ ...base, model: 'claude-x', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    const apiError = error as InstanceType<typeof Anthropic.NotFoundError>;
    expect(apiError.status).toBe(404);
    expect(apiError.error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', message: 'model: claude-x' },
    });
    expect(apiError.requestID).toMatch(/^req_/);
  });

  it('surfaces validation errors as BadRequestError through the SDK', async () => {
    const { client } = await start();
    const error = await client.messages
      .create({
        ...base,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).headers?.get('x-should-retry')).toBe('false');
  });
});
