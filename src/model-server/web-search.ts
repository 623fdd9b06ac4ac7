// The server-side web search tool, played from fixtures with its domain rules and max_uses (docs/model-server.md).
import type { ToolParam } from './request-types';

/** One page the fixture can return. */
export interface FixturePage {
  url: string;
  title: string;
  text: string;
  pageAge?: string;
}

/** The pages searched when a scenario brings none. */
export const defaultSearchFixture: FixturePage[] = [
  {
    url: 'https://docs.temporal.io/workflows',
    title: 'Temporal Workflows',
    text: 'A Temporal workflow is durable: its history is replayed after a crash, so code resumes where it was.',
    pageAge: 'March 3, 2026',
  },
  {
    url: 'https://docs.temporal.io/activities',
    title: 'Temporal Activities',
    text: 'Activities run I/O for workflows, with retries, timeouts and heartbeats.',
    pageAge: 'March 3, 2026',
  },
  {
    url: 'https://modelcontextprotocol.io/docs/learn/architecture',
    title: 'MCP architecture',
    text: 'The Model Context Protocol connects clients to servers that offer tools, resources and prompts.',
    pageAge: 'June 18, 2025',
  },
  {
    url: 'https://nodejs.org/en/about/releases',
    title: 'Node.js releases',
    text: 'Node.js 20 and 22 are long-term support releases; each line is maintained for 30 months.',
    pageAge: 'January 9, 2026',
  },
  {
    url: 'https://www.typescriptlang.org/docs/handbook/2/everyday-types.html',
    title: 'TypeScript everyday types',
    text: 'Strings, numbers, arrays, unions and type aliases in TypeScript durable code.',
    pageAge: 'May 1, 2025',
  },
  {
    url: 'https://en.wikipedia.org/wiki/Durable_function',
    title: 'Durable function - Wikipedia',
    text: 'Durable functions keep their state across failures of the process running them, workflows included.',
  },
];

/** The web_search tool of a request, if it offers one. */
export function webSearchToolOf(tools: readonly ToolParam[]): ToolParam | undefined {
  return tools.find(
    (tool) => typeof tool.type === 'string' && tool.type.startsWith('web_search_') && tool.name === 'web_search',
  );
}

const hostOf = (url: string) => new URL(url).hostname.toLowerCase();

/** The API's domain rule: a domain matches itself and its subdomains. */
export function matchesDomain(url: string, domain: string): boolean {
  const host = hostOf(url);
  const wanted = domain
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .split('/')[0]!;
  return host === wanted || host.endsWith(`.${wanted}`);
}

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Pages matching the query (by words in title and text, best first), filtered by the tool's domain lists. */
export function searchFixture(
  pages: readonly FixturePage[],
  query: string,
  tool: ToolParam,
  maxResults = 5,
): FixturePage[] {
  const allowed = Array.isArray(tool.allowed_domains) ? (tool.allowed_domains as string[]) : undefined;
  const blocked = Array.isArray(tool.blocked_domains) ? (tool.blocked_domains as string[]) : [];
  const queryWords = new Set(words(query));
  return pages
    .filter((page) => !allowed || allowed.some((domain) => matchesDomain(page.url, domain)))
    .filter((page) => !blocked.some((domain) => matchesDomain(page.url, domain)))
    .map((page) => ({ page, score: words(`${page.title} ${page.text}`).filter((word) => queryWords.has(word)).length }))
    .filter(({ score }) => score > 0)
    .sort((left, right) => right.score - left.score)
    .slice(0, maxResults)
    .map(({ page }) => page);
}

/** The `web_search_tool_result` content for one search: results, or the API's error object. */
export function searchResultContent(
  pages: readonly FixturePage[],
  query: unknown,
  tool: ToolParam,
  searchesSoFar: number,
): unknown {
  const maxUses = typeof tool.max_uses === 'number' ? tool.max_uses : Infinity;
  if (searchesSoFar >= maxUses) return { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' };
  if (typeof query !== 'string' || query.trim() === '')
    return { type: 'web_search_tool_result_error', error_code: 'invalid_tool_input' };
  if (query.length > 400) return { type: 'web_search_tool_result_error', error_code: 'query_too_long' };
  return searchFixture(pages, query, tool).map((page) => ({
    type: 'web_search_result',
    url: page.url,
    title: page.title,
    // The API's content is opaque and encrypted; here it is the page text, base64-encoded.
    encrypted_content: Buffer.from(page.text).toString('base64'),
    page_age: page.pageAge ?? null,
  }));
}
