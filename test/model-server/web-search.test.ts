import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model-server/scenario-schema';
import type { ModelServer } from '../../src/model-server/server';
import { clientFor, startTestServer } from './helpers';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const pages: NonNullable<Scenario['webSearchPages']> = [
  {
    url: 'https://docs.temporal.io/workflows',
    title: 'Temporal workflows',
    text: 'durable workflows replay history',
    pageAge: 'May 1, 2026',
  },
  { url: 'https://blog.example.com/durable', title: 'Durable agents blog', text: 'durable agents on workflows' },
  { url: 'https://spam.example.net/durable', title: 'Spam', text: 'durable durable durable' },
];

async function start(turns: Scenario['agents'][number]['turns']): Promise<Anthropic> {
  server = (
    await startTestServer({
      behaviour: { kind: 'scripted', scenario: { agents: [{ match: {}, turns }], webSearchPages: pages } },
    })
  ).server;
  return clientFor(server);
}

const webSearch = (extra: Record<string, unknown> = {}) =>
  ({ type: 'web_search_20250305', name: 'web_search', ...extra }) as Anthropic.Messages.WebSearchTool20250305;
const request = (tools: Anthropic.Messages.ToolUnion[]): Anthropic.Messages.MessageCreateParamsNonStreaming => ({
  model: 'claude-test-tiny',
  max_tokens: 512,
  messages: [{ role: 'user', content: 'Perform a web search for the query: durable workflows' }],
  tools,
});

describe("the local server's web search tool", () => {
  it('answers with server_tool_use and web_search_tool_result blocks and counts the search in usage (JSON and SSE)', async () => {
    const client = await start([
      {
        serverToolUses: [{ name: 'web_search', input: { query: 'durable workflows' } }],
        text: 'Workflows are durable.',
      },
    ]);
    const message = await client.messages.create(request([webSearch()]));
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    const [use, result] = message.content as [
      Anthropic.Messages.ServerToolUseBlock,
      Anthropic.Messages.WebSearchToolResultBlock,
    ];
    expect(use).toMatchObject({ name: 'web_search', input: { query: 'durable workflows' } });
    expect(use.id).toMatch(/^srvtoolu_01/);
    expect(result.tool_use_id).toBe(use.id);
    expect(Array.isArray(result.content) && result.content.map((entry) => entry.url)).toEqual([
      'https://docs.temporal.io/workflows',
      'https://blog.example.com/durable',
      'https://spam.example.net/durable',
    ]);
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });

    const streamed = await client.messages.stream(request([webSearch()])).finalMessage();
    expect(streamed.content).toEqual(message.content);
    expect(streamed.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
  });

  it('applies allowed_domains (subdomains included) and blocked_domains, and max_uses', async () => {
    const client = await start([
      {
        serverToolUses: [
          { name: 'web_search', input: { query: 'durable' } },
          { name: 'web_search', input: { query: 'durable' } },
        ],
        text: 'done',
      },
    ]);
    const urls = (message: Anthropic.Message) =>
      message.content
        .filter((block) => block.type === 'web_search_tool_result')
        .map((block) =>
          Array.isArray(block.content) ? block.content.map((entry) => entry.url) : block.content.error_code,
        );
    expect(urls(await client.messages.create(request([webSearch({ allowed_domains: ['example.com'] })])))).toEqual([
      ['https://blog.example.com/durable'],
      ['https://blog.example.com/durable'],
    ]);
    expect(
      urls(
        await client.messages.create(
          request([webSearch({ blocked_domains: ['example.net', 'temporal.io'], max_uses: 1 })]),
        ),
      ),
    ).toEqual([['https://blog.example.com/durable'], 'max_uses_exceeded']);
  });

  it('says so when the scripted turn searches but the request offers no web_search tool', async () => {
    const client = await start([{ serverToolUses: [{ name: 'web_search', input: { query: 'x' } }] }]);
    const message = await client.messages.create(request([]));
    expect(message.content).toEqual([
      expect.objectContaining({
        type: 'text',
        text: '[scenario error: the turn searches the web, but the request offers no web_search tool]',
      }),
    ]);
    expect(message.usage.server_tool_use).toBeUndefined();
  });

  it('accepts the blocks back in the next request (pause_turn continuation) and keeps the turn count', async () => {
    const client = await start([
      { serverToolUses: [{ name: 'web_search', input: { query: 'durable' } }], stopReason: 'pause_turn' },
      { text: 'continued after the pause' },
    ]);
    const first = await client.messages.create(request([webSearch()]));
    expect(first.stop_reason).toBe('pause_turn');
    const second = await client.messages.create({
      ...request([webSearch()]),
      messages: [
        ...request([]).messages,
        { role: 'assistant', content: first.content as Anthropic.Messages.ContentBlockParam[] },
      ],
    });
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'continued after the pause' })]);
  });
});
