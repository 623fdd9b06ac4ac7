import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelServer } from '../../src/model-server/server';
import { clientFor, errorMessage, postRaw, startTestServer } from './helpers';

type Params = Anthropic.MessageCreateParamsNonStreaming;
type Block = Anthropic.TextBlockParam;

let server: ModelServer | undefined;
let client: Anthropic;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<void> {
  const started = await startTestServer({ behaviour: { kind: 'echo' }, ...options });
  server = started.server;
  client = started.client;
}

const ephemeral = { type: 'ephemeral' as const };
const long = (label: string, words: number): string =>
  Array.from({ length: words }, (_, index) => `${label}-${index}`).join(' ');
const marked = (text: string, ttl?: '5m' | '1h'): Block => ({
  type: 'text',
  text,
  cache_control: ttl ? { type: 'ephemeral', ttl } : ephemeral,
});
const systemPrompt = long('system', 300);

async function countTokens(params: Params): Promise<number> {
  const { max_tokens: _maxTokens, ...rest } = params;
  return (await client.messages.countTokens(rest)).input_tokens;
}

/** Sends and checks the API's invariant: input + creation + read = all prompt tokens. */
async function usageOf(params: Params, target: Anthropic = client): Promise<Anthropic.Usage> {
  const message = await target.messages.create(params);
  const { usage } = message;
  expect(usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)).toBe(
    await countTokens(params),
  );
  return usage;
}

const conversation = (model = 'claude-test-tiny', system = systemPrompt) => ({
  turn1: {
    model,
    max_tokens: 256,
    system: [marked(system)],
    messages: [{ role: 'user', content: [marked('Question one?')] }],
  } satisfies Params,
  turn2: {
    model,
    max_tokens: 256,
    system: [marked(system)],
    messages: [
      { role: 'user', content: 'Question one?' },
      { role: 'assistant', content: 'Question one?' },
      { role: 'user', content: [marked('Question two?')] },
    ],
  } satisfies Params,
});

describe('prompt caching', () => {
  it('writes the prefix on the first turn and reads it on the next', async () => {
    await start();
    const { turn1, turn2 } = conversation();
    const first = await usageOf(turn1);
    const turn1Tokens = await countTokens(turn1);
    expect(first).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: turn1Tokens,
      input_tokens: 0,
    });
    expect(first.cache_creation).toEqual({ ephemeral_5m_input_tokens: turn1Tokens, ephemeral_1h_input_tokens: 0 });
    const second = await usageOf(turn2);
    expect(second.cache_read_input_tokens).toBe(turn1Tokens);
    expect(second.cache_creation_input_tokens).toBe((await countTokens(turn2)) - turn1Tokens);
    const again = await usageOf(turn2);
    expect(again).toMatchObject({
      cache_read_input_tokens: await countTokens(turn2),
      cache_creation_input_tokens: 0,
      input_tokens: 0,
    });
    const logged = server!.requests().filter((entry) => entry.path === '/v1/messages');
    expect(logged.map((entry) => entry.usage)).toEqual(
      [first, second, again].map((usage) => expect.objectContaining(usage)),
    );
  });

  it('counts tokens after the last breakpoint as input_tokens', async () => {
    await start();
    const params: Params = {
      model: 'claude-test-tiny',
      max_tokens: 256,
      system: [marked(systemPrompt)],
      messages: [{ role: 'user', content: 'uncached tail' }],
    };
    const usage = await usageOf(params);
    // {"type":"text","text":"uncached tail"} is 38 bytes → 10 tokens.
    expect(usage.input_tokens).toBe(10);
  });

  it('misses when the system prompt changes, for every later breakpoint', async () => {
    await start();
    await usageOf(conversation().turn1);
    const changed = conversation('claude-test-tiny', `${systemPrompt} (changed)`).turn2;
    const usage = await usageOf(changed);
    expect(usage.cache_read_input_tokens).toBe(0);
    expect(usage.cache_creation_input_tokens).toBe(await countTokens(changed));
  });

  it('lets 5 requests that share a prefix all read it, whatever their last block', async () => {
    await start();
    const shared = long('history', 200);
    const requestFor = (index: number): Params => ({
      model: 'claude-test-tiny',
      max_tokens: 256,
      system: [marked(systemPrompt)],
      messages: [{ role: 'user', content: [marked(shared), marked(`Directive for fork ${index}: do part ${index}.`)] }],
    });
    const sharedTokens = await countTokens({
      model: 'claude-test-tiny',
      max_tokens: 256,
      system: [marked(systemPrompt)],
      messages: [{ role: 'user', content: shared }],
    });
    const first = await usageOf(requestFor(0));
    expect(first.cache_read_input_tokens).toBe(0);
    for (let index = 1; index < 5; index++) {
      const usage = await usageOf(requestFor(index));
      expect(usage.cache_read_input_tokens).toBe(sharedTokens);
      expect(usage.cache_creation_input_tokens).toBe((await countTokens(requestFor(index))) - sharedTokens);
    }
  });

  it('does not let parallel requests read an entry before its writer starts responding', async () => {
    await start({
      behaviour: { kind: 'scripted', scenario: { agents: [], default: [{ text: 'slow', delayMs: 200 }] } },
    });
    const { turn1 } = conversation();
    const [left, right] = await Promise.all([client.messages.create(turn1), client.messages.create(turn1)]);
    expect(left.usage.cache_read_input_tokens).toBe(0);
    expect(right.usage.cache_read_input_tokens).toBe(0);
    expect(left.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(right.usage.cache_creation_input_tokens).toBe(left.usage.cache_creation_input_tokens);
    expect((await client.messages.create(turn1)).usage.cache_read_input_tokens).toBe(await countTokens(turn1));
  });

  it("writes nothing below the model's minimum cacheable length", async () => {
    await start();
    const tiny: Params = {
      model: 'claude-test-tiny',
      max_tokens: 64,
      system: [marked('short system')],
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(await countTokens({ ...tiny, messages: [{ role: 'user', content: 'x' }] })).toBeLessThan(64);
    for (let attempt = 0; attempt < 2; attempt++) {
      const usage = await usageOf(tiny);
      expect(usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    }
    // About 2,200 tokens: above Sonnet 4.5's 1024, below Haiku 4.5's 4096.
    const big = long('big', 1100);
    const sonnet = await usageOf({ ...conversation('claude-sonnet-4-5', big).turn1 });
    expect(sonnet.cache_creation_input_tokens).toBeGreaterThan(1024);
    const haiku = await usageOf({ ...conversation('claude-haiku-4-5', big).turn1 });
    expect(haiku.cache_creation_input_tokens).toBe(0);
    expect((await usageOf({ ...conversation('claude-haiku-4-5', big).turn1 })).cache_read_input_tokens).toBe(0);
  });

  it('looks back at most 20 blocks from a breakpoint', async () => {
    await start();
    const seed: Params = {
      model: 'claude-test-tiny',
      max_tokens: 64,
      messages: [{ role: 'user', content: [marked(systemPrompt)] }],
    };
    const seedTokens = await countTokens(seed);
    const withAdded = (added: number, extraBreakpointAt?: number): Params => ({
      model: 'claude-test-tiny',
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: systemPrompt },
            ...Array.from({ length: added }, (_, index) =>
              index === added - 1 || index === extraBreakpointAt
                ? marked(`block ${index}`)
                : { type: 'text' as const, text: `block ${index}` },
            ),
          ],
        },
      ],
    });
    await usageOf(seed);
    expect((await usageOf(withAdded(20))).cache_read_input_tokens).toBe(seedTokens);
    server!.clearCache();
    await usageOf(seed);
    const miss = await usageOf(withAdded(21));
    expect(miss.cache_read_input_tokens).toBe(0);
    expect(miss.cache_creation_input_tokens).toBe(await countTokens(withAdded(21)));
    server!.clearCache();
    await usageOf(seed);
    // A second breakpoint within reach of the old entry recovers the hit.
    expect((await usageOf(withAdded(21, 10))).cache_read_input_tokens).toBe(seedTokens);
  });

  it('places the automatic (top-level) breakpoint on the last block', async () => {
    await start();
    const turn1: Params = {
      model: 'claude-test-tiny',
      max_tokens: 64,
      cache_control: ephemeral,
      system: systemPrompt,
      messages: [{ role: 'user', content: 'one' }],
    };
    const first = await usageOf(turn1);
    expect(first).toMatchObject({ cache_creation_input_tokens: await countTokens(turn1), input_tokens: 0 });
    const turn2: Params = {
      ...turn1,
      messages: [...turn1.messages, { role: 'assistant', content: 'one' }, { role: 'user', content: 'two' }],
    };
    expect((await usageOf(turn2)).cache_read_input_tokens).toBe(await countTokens(turn1));
  });

  it('rejects 4 explicit breakpoints plus the automatic one, and a 1h breakpoint after a 5m one', async () => {
    await start();
    const four = {
      model: 'claude-test-tiny',
      max_tokens: 64,
      system: [marked('a'), marked('b')],
      messages: [{ role: 'user', content: [marked('c'), marked('d'), { type: 'text', text: 'e' }] }],
    };
    expect((await postRaw(server!, '/v1/messages', JSON.stringify(four))).status).toBe(200);
    const five = await postRaw(server!, '/v1/messages', JSON.stringify({ ...four, cache_control: ephemeral }));
    expect(five.status).toBe(400);
    expect(errorMessage(five.json)).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
    const order = await postRaw(
      server!,
      '/v1/messages',
      JSON.stringify({ ...four, system: [marked('a', '5m'), marked('b', '1h')] }),
    );
    expect(order.status).toBe(400);
    expect(errorMessage(order.json)).toMatch(
      /^A 'ttl'='1h' cache_control block must not come after a 'ttl'='5m' cache_control block/,
    );
  });

  it('splits creation by TTL and expires entries 5 minutes / 1 hour after the request started, refreshed by reads', async () => {
    let now = 1_000_000;
    await start({ now: () => now });
    const minutes = (count: number): number => count * 60_000;
    const mixed: Params = {
      model: 'claude-test-tiny',
      max_tokens: 64,
      system: [marked(systemPrompt, '1h')],
      messages: [{ role: 'user', content: [marked('Question?', '5m')] }],
    };
    const total = await countTokens(mixed);
    const systemTokens = total - (await countTokens({ ...mixed, system: [] }));
    const first = await usageOf(mixed);
    expect(first.cache_creation).toEqual({
      ephemeral_1h_input_tokens: systemTokens,
      ephemeral_5m_input_tokens: total - systemTokens,
    });

    now += minutes(4);
    expect((await usageOf(mixed)).cache_read_input_tokens).toBe(total);
    now += minutes(4); // 8 minutes after the write, 4 after the refreshing read
    expect((await usageOf(mixed)).cache_read_input_tokens).toBe(total);
    now += minutes(6); // the 5m entry lapsed; the 1h system entry is still there
    const later = await usageOf(mixed);
    expect(later.cache_read_input_tokens).toBe(systemTokens);
    expect(later.cache_creation).toEqual({
      ephemeral_1h_input_tokens: 0,
      ephemeral_5m_input_tokens: total - systemTokens,
    });
    now += minutes(61);
    expect((await usageOf(mixed)).cache_read_input_tokens).toBe(0);
  });

  it('keeps caches per model and per API key (workspace)', async () => {
    await start();
    const { turn1 } = conversation();
    await usageOf(turn1);
    expect((await usageOf(turn1, clientFor(server!, { apiKey: 'other-workspace' }))).cache_read_input_tokens).toBe(0);
    expect((await usageOf({ ...turn1, model: 'claude-opus-5' })).cache_read_input_tokens).toBe(0);
    expect((await usageOf(turn1)).cache_read_input_tokens).toBe(await countTokens(turn1));
  });
});
