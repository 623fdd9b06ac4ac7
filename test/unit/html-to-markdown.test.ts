import { describe, expect, it } from 'vitest';
import { decodeBody, htmlToMarkdown, pageToMarkdown } from '../../src/activities/web/html-to-markdown';
import { PageCache } from '../../src/activities/web/page-cache';
import { collectSearch, formatSearch, type SearchOutcome } from '../../src/activities/web/web-search';

const article = `<html><head><title>Durable agents</title><style>p{}</style></head><body><nav>Home | Blog</nav>
<article><h2>Why workflows</h2><p>Every agent is a <b>workflow</b>; it survives <a href="/crash">crashes</a>.</p>
<p>${'Readability needs enough text to find the article. '.repeat(6)}</p><ul><li>one</li><li>two</li></ul><pre><code>npm test</code></pre></article>
<script>steal()</script><footer>Copyright</footer></body></html>`;

describe('WebFetch page conversion', () => {
  it('turns the readable part of an HTML page into Markdown, without scripts, styles or navigation', async () => {
    const markdown = await pageToMarkdown(Buffer.from(article), 'text/html; charset=utf-8');
    expect(markdown).toMatch(/^# Durable agents/);
    expect(markdown).toContain('Every agent is a **workflow**; it survives [crashes](/crash).');
    expect(markdown).toContain('-   one');
    expect(markdown).toContain('```\nnpm test\n```');
    expect(markdown).not.toMatch(/steal|p\{\}|Home \| Blog|<b>/);
  });

  it('falls back to the whole body when there is no article, passes text through and refuses binary content', async () => {
    expect((await htmlToMarkdown('<p>Just <i>one</i> line</p>')).markdown).toBe('Just _one_ line');
    expect(await pageToMarkdown(Buffer.from('# Title\n\nplain'), 'text/markdown')).toBe('# Title\n\nplain');
    expect(await pageToMarkdown(Buffer.from('{"a":1}'), 'application/json')).toBe('{"a":1}');
    await expect(pageToMarkdown(Buffer.from([0x89, 0x50]), 'image/png')).rejects.toThrow(
      /^UnsupportedContent: the page is image\/png/,
    );
    expect(decodeBody(Buffer.from([0xe9]), 'text/plain; charset=latin1')).toBe('é');
    expect(decodeBody(Buffer.from('ok'), 'text/plain; charset=no-such-charset')).toBe('ok');
  });

  it('caches pages for their time to live, and the most recent ones only', () => {
    let now = 0;
    const cache = new PageCache(1000, 2, () => now);
    const page = (url: string) => ({ url, status: 200, contentType: 'text/html', bytes: 1, markdown: url });
    cache.set('a', page('a'));
    now = 999;
    expect(cache.get('a')?.markdown).toBe('a');
    now = 1000;
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', page('b'));
    cache.set('c', page('c'));
    cache.set('d', page('d'));
    expect([cache.get('b'), cache.get('c')?.url, cache.get('d')?.url]).toEqual([undefined, 'c', 'd']);
  });
});

/** A direct web_search call of the model, as the API returns it. */
const searchCall = (id: string, query: string) => ({
  type: 'server_tool_use',
  id,
  name: 'web_search',
  input: { query },
  caller: { type: 'direct' },
});
/** The result block of the search `id`: a list of results or an error. */
const searchResult = (id: string, content: unknown) => ({
  type: 'web_search_tool_result',
  tool_use_id: id,
  caller: { type: 'direct' },
  content,
});

describe('WebSearch result', () => {
  it('lists the links of every search once, the searches run, errors and the summary', () => {
    const outcome: SearchOutcome = { queries: [], links: [], errors: [], text: '' };
    collectSearch(
      [
        searchCall('s1', 'temporal'),
        searchResult('s1', [
          {
            type: 'web_search_result',
            url: 'https://a.dev/x',
            title: 'A',
            encrypted_content: 'e',
            page_age: 'May 1',
          },
        ]),
        searchCall('s2', 'temporal workflows'),
        searchResult('s2', [
          { type: 'web_search_result', url: 'https://a.dev/x', title: 'A', encrypted_content: 'e', page_age: null },
        ]),
        searchResult('s3', { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' }),
        { type: 'text', text: 'A says workflows are durable.', citations: null },
      ] as never,
      outcome,
    );
    expect(formatSearch('temporal', outcome).split('\n')).toEqual([
      'Web search results for query: "temporal"',
      'Searches run: "temporal", "temporal workflows"',
      '',
      'Links:',
      '1. A — https://a.dev/x (May 1)',
      '',
      'The search service reported: max_uses_exceeded.',
      '',
      'A says workflows are durable.',
    ]);
  });
});
