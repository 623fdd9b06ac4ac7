import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientFor } from '../../model-server/helpers';
import { noPrivateAddresses, parsePrivateAllowance } from '../../../src/shared/policy/address-policy';
import { PageCache } from '../../../src/activities/web/page-cache';
import { createWebFetch, type WebFetchDependencies } from '../../../src/activities/web/web-fetch';
import { createWebSearch } from '../../../src/activities/web/web-search';
import type { ToolEnv } from '../../../src/activities/tools/tool-env';
import { startModelServer, type ModelServer } from '../../../src/model-server/server';
import type { Behaviour, Turn } from '../../../src/model-server/scenario-schema';
import type { WebToolCallInput } from '../../../src/shared/tools/extra-tool-calls';

let site: Server;
let siteUrl: string;
let model: ModelServer;
const hits: string[] = [];

const page = `<html><head><title>Release notes</title></head><body><nav>menu</nav><main><h1>Release notes</h1>
<p>Version 4.2 adds durable subagents. ${'Each agent is a Temporal workflow that survives crashes. '.repeat(5)}</p></main><script>evil()</script></body></html>`;

beforeAll(async () => {
  site = createServer((request, response) => {
    hits.push(request.url ?? '');
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/notes')
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    if (url.pathname === '/moved') return void response.writeHead(301, { location: '/notes' }).end();
    if (url.pathname === '/elsewhere')
      return void response
        .writeHead(302, { location: `http://localhost:${(site.address() as AddressInfo).port}/notes` })
        .end();
    if (url.pathname === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    if (url.pathname === '/big')
      return void response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
    if (url.pathname === '/big-declared')
      return void response
        .writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' })
        .end('x'.repeat(5000));
    if (url.pathname === '/image')
      return void response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50]));
    if (url.pathname === '/missing') return void response.writeHead(404).end('no');
    if (url.pathname === '/hang') return; // never answers
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  model = await startModelServer({ port: 0, behaviour: { kind: 'echo' } });
});
afterAll(async () => {
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await model?.close();
});
beforeEach(() => {
  hits.length = 0;
  model.clearRequests();
});

const env = (): ToolEnv => ({ signal: new AbortController().signal, heartbeat: () => {} });
const call = (input: Record<string, unknown>, model = 'claude-test-tiny'): WebToolCallInput => ({
  context: { agentId: 'agent-web', workspaceRoot: '/tmp', cwd: '/tmp' },
  toolUseId: 'toolu_1',
  input,
  agentType: 'general-purpose',
  model,
});

function webFetch(
  overrides: Partial<WebFetchDependencies['policy']> = {},
  allowance = parsePrivateAllowance('127.0.0.1'),
) {
  return createWebFetch({
    anthropic: clientFor(model),
    smallModel: 'claude-haiku-4-5',
    cache: new PageCache(15 * 60 * 1000, 10),
    policy: { allowance, timeoutMs: 10_000, maxBytes: 1_000_000, maxRedirects: 5, maxUrlChars: 2000, ...overrides },
  });
}

describe('WebFetch against a local HTTP server, through the real SDK and the local model server', () => {
  it('gives the small model the page as Markdown and the prompt, and returns its answer with the usage', async () => {
    const result = await webFetch()(call({ url: `${siteUrl}/notes`, prompt: 'What does version 4.2 add?' }), env());
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(
      new RegExp(`^Fetched ${siteUrl}/notes \\(HTTP 200, text/html; charset=utf-8, \\d+ bytes\\)`),
    );
    // The echo model answers with what it was given: the Markdown page and the question.
    expect(result.content).toContain('# Release notes');
    expect(result.content).toContain('Version 4.2 adds durable subagents.');
    expect(result.content).toContain('What does version 4.2 add?');
    expect(result.content).not.toMatch(/evil\(\)|<p>|menu/);
    const [request] = model.requests();
    expect(JSON.parse(request!.rawBody).model).toBe('claude-haiku-4-5');
    expect(request!.headers['x-subagents-agent-type']).toBe('WebFetch');
    expect(result.usage?.inputTokens ?? 0).toBeGreaterThan(0);
  });

  it('caches a page for 15 minutes: a second question about it does not fetch it again', async () => {
    const tool = webFetch();
    await tool(call({ url: `${siteUrl}/notes`, prompt: 'first' }), env());
    const second = await tool(call({ url: `${siteUrl}/notes`, prompt: 'second question' }), env());
    expect(second.content).toContain('second question');
    expect(hits).toEqual(['/notes']);
    expect(model.requests()).toHaveLength(2);
  });

  it('refuses private and loopback addresses unless configuration allows them', async () => {
    const refused = await webFetch({}, noPrivateAddresses)(call({ url: `${siteUrl}/notes`, prompt: 'x' }), env());
    expect(refused).toMatchObject({
      isError: true,
      content: expect.stringMatching(
        /^UrlNotAllowed: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a private, local or reserved address/,
      ),
    });
    const byName = await webFetch({}, noPrivateAddresses)(
      call({ url: `${siteUrl.replace('127.0.0.1', 'localhost')}/notes`, prompt: 'x' }),
      env(),
    );
    expect(byName.content).toMatch(/^UrlNotAllowed: localhost resolves to/);
    expect(hits).toEqual([]);
    expect(model.requests()).toHaveLength(0);
  });

  it('follows a same-host redirect, reports one to another host, and gives up on a loop', async () => {
    expect((await webFetch()(call({ url: `${siteUrl}/moved`, prompt: 'x' }), env())).content).toMatch(
      /^Fetched .*\/notes \(HTTP 200/,
    );
    const elsewhere = await webFetch()(call({ url: `${siteUrl}/elsewhere`, prompt: 'x' }), env());
    expect(elsewhere).toMatchObject({
      isError: false,
      content: expect.stringMatching(
        /redirects \(HTTP 302\) to another host: http:\/\/localhost:\d+\/notes[\s\S]*call WebFetch again/,
      ),
    });
    expect((await webFetch()(call({ url: `${siteUrl}/loop`, prompt: 'x' }), env())).content).toMatch(
      /^FetchFailed: .*redirected more than 5 times/,
    );
  });

  it('enforces the size and time limits and refuses binary content and HTTP errors', async () => {
    expect(
      (await webFetch({ maxBytes: 1000 })(call({ url: `${siteUrl}/big-declared`, prompt: 'x' }), env())).content,
    ).toMatch(/^ContentTooLarge: the page is 5000 bytes/);
    expect((await webFetch({ maxBytes: 1000 })(call({ url: `${siteUrl}/big`, prompt: 'x' }), env())).content).toMatch(
      /^ContentTooLarge: the page is larger than 1000 bytes/,
    );
    expect((await webFetch({ timeoutMs: 300 })(call({ url: `${siteUrl}/hang`, prompt: 'x' }), env())).content).toMatch(
      /^FetchFailed: .*did not answer within 0.3 s/,
    );
    expect((await webFetch()(call({ url: `${siteUrl}/image`, prompt: 'x' }), env())).content).toMatch(
      /^UnsupportedContent: the page is image\/png/,
    );
    expect((await webFetch()(call({ url: `${siteUrl}/missing`, prompt: 'x' }), env())).content).toMatch(
      /^FetchFailed: .* answered HTTP 404/,
    );
    expect(model.requests()).toHaveLength(0);
  });

  it('refuses other schemes and bad input with a clear error', async () => {
    const tool = webFetch();
    expect((await tool(call({ url: 'file:///etc/passwd', prompt: 'x' }), env())).content).toMatch(
      /^UrlNotAllowed: only http and https/,
    );
    expect((await tool(call({ url: 'ftp://example.com/', prompt: 'x' }), env())).content).toMatch(/^UrlNotAllowed/);
    for (const input of [
      {},
      { url: 42, prompt: 'x' },
      { url: `${siteUrl}/notes` },
      { url: `${siteUrl}/notes`, prompt: '  ' },
      { url: 'x', prompt: 'y', extra: 1 },
    ]) {
      const result = await tool(call(input), env());
      expect(result).toMatchObject({
        isError: true,
        content: expect.stringMatching(/^InvalidToolInput: WebFetch was called with invalid input/),
      });
    }
  });
});

/** A scripted behaviour that plays `turns` to the WebSearch helper agent. */
const webSearchTurns = (turns: Turn[]): Behaviour => ({
  kind: 'scripted',
  scenario: { agents: [{ match: { agentType: 'WebSearch' }, turns }] },
});

describe('WebSearch through the server-side web search tool of the local model server', () => {
  it('passes the tool and the domains through, and returns the links, the summary and the searches in usage', async () => {
    model.setBehaviour(
      webSearchTurns([
        {
          serverToolUses: [{ name: 'web_search', input: { query: 'temporal workflows' } }],
          text: 'Temporal workflows are durable.',
        },
      ]),
    );
    const result = await createWebSearch(clientFor(model))(
      call({ query: 'temporal workflows', allowed_domains: ['docs.temporal.io'] }),
      env(),
    );
    expect(result.isError).toBe(false);
    expect(result.content.split('\n')).toEqual([
      'Web search results for query: "temporal workflows"',
      '',
      'Links:',
      '1. Temporal Workflows — https://docs.temporal.io/workflows (March 3, 2026)',
      '2. Temporal Activities — https://docs.temporal.io/activities (March 3, 2026)',
      '',
      'Temporal workflows are durable.',
    ]);
    expect(result.usage?.webSearchRequests).toBe(1);
    const body = JSON.parse(model.requests()[0]!.rawBody);
    expect(body.model).toBe('claude-test-tiny');
    expect(body.tools).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 8, allowed_domains: ['docs.temporal.io'] },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: 'Perform a web search for the query: temporal workflows' },
    ]);
  });

  it('continues after pause_turn, and reports a search that found nothing but errors as an error', async () => {
    model.setBehaviour(
      webSearchTurns([
        { serverToolUses: [{ name: 'web_search', input: { query: 'mcp' } }], stopReason: 'pause_turn' },
        { serverToolUses: [{ name: 'web_search', input: { query: 'node releases' } }], text: 'Both found.' },
      ]),
    );
    const result = await createWebSearch(clientFor(model))(
      call({ query: 'mcp and node', blocked_domains: ['wikipedia.org'] }),
      env(),
    );
    expect(result.content).toContain('Searches run: "mcp", "node releases"');
    expect(result.content).toContain('https://modelcontextprotocol.io/docs/learn/architecture');
    expect(result.content).toContain('https://nodejs.org/en/about/releases');
    expect(result.usage?.webSearchRequests).toBe(2);
    expect(model.requests()).toHaveLength(2);

    model.setBehaviour(webSearchTurns([{ serverToolUses: [{ name: 'web_search', input: { query: '' } }] }]));
    const failed = await createWebSearch(clientFor(model))(call({ query: 'anything' }), env());
    expect(failed).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^WebSearchFailed: [\s\S]*invalid_tool_input/),
    });
  });

  it('refuses bad input: both domain lists, a one-character query, URLs instead of domains', async () => {
    const tool = createWebSearch(clientFor(model));
    for (const input of [
      { query: 'x' },
      { query: 'ok query', allowed_domains: ['a.com'], blocked_domains: ['b.com'] },
      { query: 'ok query', allowed_domains: ['https://a.com'] },
      { query: 7 },
    ]) {
      expect((await tool(call(input), env())).content).toMatch(
        /^InvalidToolInput: WebSearch was called with invalid input/,
      );
    }
    expect(model.requests()).toHaveLength(0);
  });
});
