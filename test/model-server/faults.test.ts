import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ModelServerOptions } from '../../src/model-server/server';
import { clientFor, helloRequest, serverPerTest } from './helpers';

const servers = serverPerTest();

const request = helloRequest(256);

const start = (options: ModelServerOptions = { behaviour: { kind: 'echo' } }) => servers.start(options);

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('injected faults', () => {
  it('429 becomes RateLimitError with retry-after and a rate_limit_error body', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: '429', retryAfterSeconds: 3 });
    const error = await failure(client.messages.create(request));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rateLimit = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers?.get('retry-after')).toBe('3');
    expect(rateLimit.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    // times defaults to 1: the next request is served.
    expect((await client.messages.create(request)).content).toEqual([{ type: 'text', text: 'hello there' }]);
  });

  it('529 and 500 become InternalServerError with overloaded_error / api_error', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: '529' });
    servers.current().injectFault({ kind: '500' });
    const overloaded = (await failure(client.messages.create(request))) as InstanceType<
      typeof Anthropic.InternalServerError
    >;
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
    expect(overloaded.status).toBe(529);
    expect(overloaded.type).toBe('overloaded_error');
    const internal = (await failure(client.messages.create(request))) as InstanceType<
      typeof Anthropic.InternalServerError
    >;
    expect(internal).toBeInstanceOf(Anthropic.InternalServerError);
    expect(internal.status).toBe(500);
    expect(internal.type).toBe('api_error');
    expect(
      servers
        .current()
        .requests()
        .map((logged) => logged.status),
    ).toEqual([529, 500]);
  });

  it('http-error answers any 4xx with the API body the SDK maps to its error class', async () => {
    const { client } = await start();
    servers.current().injectFault({
      kind: 'http-error',
      status: 400,
      message: 'messages.1: tool_use ids were found without tool_result blocks',
    });
    servers.current().injectFault({ kind: 'http-error', status: 401 });
    servers.current().injectFault({
      kind: 'http-error',
      status: 413,
      errorType: 'request_too_large',
      message: 'Request exceeds the maximum size',
    });
    const badRequest = (await failure(client.messages.create(request))) as InstanceType<
      typeof Anthropic.BadRequestError
    >;
    expect(badRequest).toBeInstanceOf(Anthropic.BadRequestError);
    expect(badRequest.error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'messages.1: tool_use ids were found without tool_result blocks',
      },
    });
    expect(await failure(client.messages.create(request))).toBeInstanceOf(Anthropic.AuthenticationError);
    const tooLarge = (await failure(client.messages.create(request))) as InstanceType<typeof Anthropic.APIError>;
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.error).toMatchObject({
      error: { type: 'request_too_large', message: 'Request exceeds the maximum size' },
    });
    expect(
      servers
        .current()
        .requests()
        .map((logged) => logged.status),
    ).toEqual([400, 401, 413]);
  });

  it('refuses an http-error fault without a status, and a status on another kind', async () => {
    await start();
    expect(() => servers.current().injectFault({ kind: 'http-error' } as never)).toThrow(/status/);
    expect(() => servers.current().injectFault({ kind: '429', status: 400 } as never)).toThrow(/status/);
  });

  it('an SDK with retries honours retry-after and succeeds on the second attempt', async () => {
    await start();
    servers.current().injectFault({ kind: '429', retryAfterSeconds: 1 });
    const client = clientFor(servers.current(), { maxRetries: 2 });
    const message = await client.messages.create(request);
    expect(message.content).toEqual([{ type: 'text', text: 'hello there' }]);
    const log = servers.current().requests();
    expect(log.map((logged) => logged.status)).toEqual([429, 200]);
    expect(log[1]!.receivedAt - log[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
    expect(log[1]!.headers['x-stainless-retry-count']).toBe('1');
    expect(log[1]!.rawBody).toBe(log[0]!.rawBody);
  });

  it('stream-cut makes finalMessage() reject after a partial stream, then serves normally', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: 'stream-cut' });
    const stream = client.messages.stream(request);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(texts.length).toBeGreaterThan(0);
    expect((await client.messages.stream(request).finalMessage()).content).toEqual([
      { type: 'text', text: 'hello there' },
    ]);
  });

  it('stream-cut on a JSON request drops the connection mid-body', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: 'stream-cut' });
    await expect(client.messages.create(request)).rejects.toThrow();
  });

  it('slow-first-byte delays the response by delayMs', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: 'slow-first-byte', delayMs: 300 });
    const started = Date.now();
    await client.messages.create(request);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('overloaded-sse answers 200 and then an error event', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: 'overloaded-sse' });
    const error = (await failure(client.messages.stream(request).finalMessage())) as InstanceType<
      typeof Anthropic.APIError
    >;
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error.status).toBeUndefined();
    expect(error.type).toBe('overloaded_error');
    expect(servers.current().requests()[0]!.status).toBe(200);
  });

  it('applies to the next `times` requests that match agent and turn', async () => {
    const { client } = await start();
    servers.current().injectFault({ kind: '529', times: 2, match: { agentType: 'Explore', turnIndex: 0 } });
    const explore = clientFor(servers.current(), { headers: { 'x-subagents-agent-type': 'Explore' } });
    await expect(client.messages.create(request)).resolves.toBeDefined();
    await expect(
      explore.messages.create({
        ...request,
        messages: [...request.messages, { role: 'assistant', content: 'a' }, { role: 'user', content: 'b' }],
      }),
    ).resolves.toBeDefined();
    await expect(explore.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    await expect(explore.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    await expect(explore.messages.create(request)).resolves.toBeDefined();
  });
});

describe('scripted faults', () => {
  it('fail the first `times` attempts of their (agent, turn), then the turn is served', async () => {
    const { client } = await start({
      behaviour: {
        kind: 'scripted',
        scenario: {
          agents: [{ match: {}, turns: [{ text: 'after two failures', fault: { kind: '529', times: 2 } }] }],
        },
      },
    });
    const agent = clientFor(servers.current(), { headers: { 'x-subagents-agent-id': 'root-1' } });
    await expect(agent.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    await expect(agent.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect((await agent.messages.create(request)).content).toEqual([{ type: 'text', text: 'after two failures' }]);
    // Another agent has its own attempt counter.
    await expect(client.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect(
      servers
        .current()
        .requests()
        .map((logged) => [logged.agentKey, logged.status]),
    ).toEqual([
      ['root-1', 529],
      ['root-1', 529],
      ['root-1', 200],
      ['agents.0', 529],
    ]);
  });
});
