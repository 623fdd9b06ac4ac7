// WebSearch: Claude Code's input run through the API's server-side web search tool (docs/tools.md).
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { WebToolCallInput } from '../../shared/tools/extra-tool-calls';
import { addTokenUsage, emptyTokenUsage, type TokenUsage } from '../../shared/model/messages';
import { webToolLimits } from '../../shared/tools/web-tool-definitions';
import { defineTool, type ToolRunner } from '../tools/tool-runner';
import { createMessage, toolCallHeaders, usageOf } from './nested-model-call';

const domain = z
  .string()
  .trim()
  .min(1)
  .regex(/^(?!.*:\/\/)[^\s/]+(\/\S*)?$/, { error: 'a domain such as example.com (no scheme)' });

const inputSchema = z
  .strictObject({
    query: z.string({ error: 'expected a string' }).trim().min(2, { error: 'must be at least 2 characters' }).max(500),
    allowed_domains: z.array(domain).max(100).optional(),
    blocked_domains: z.array(domain).max(100).optional(),
  })
  .refine((input) => !(input.allowed_domains?.length && input.blocked_domains?.length), {
    error: 'give allowed_domains or blocked_domains, not both',
  });

const systemPrompt =
  'You run web searches for another assistant. Search for what the user asks, then summarise in a few sentences what the results say, citing them.';

/** What the search call produced. */
export interface SearchOutcome {
  queries: string[];
  links: { title: string; url: string; pageAge?: string | null }[];
  errors: string[];
  text: string;
}

/** Collects the search's blocks: the queries it ran, the results (or error codes) and the text. */
export function collectSearch(content: readonly Anthropic.Messages.ContentBlock[], outcome: SearchOutcome): void {
  for (const block of content) {
    if (block.type === 'server_tool_use' && block.name === 'web_search') {
      const query = (block.input as { query?: unknown } | null)?.query;
      if (typeof query === 'string') outcome.queries.push(query);
    } else if (block.type === 'web_search_tool_result') {
      if (Array.isArray(block.content)) {
        for (const result of block.content) {
          if (!outcome.links.some((link) => link.url === result.url))
            outcome.links.push({ title: result.title, url: result.url, pageAge: result.page_age });
        }
      } else outcome.errors.push(block.content.error_code);
    } else if (block.type === 'text' && block.text.trim() !== '') {
      outcome.text += (outcome.text ? '\n' : '') + block.text.trim();
    }
  }
}

/** The tool result the agent reads. */
export function formatSearch(query: string, outcome: SearchOutcome): string {
  const lines = [`Web search results for query: "${query}"`];
  const other = outcome.queries.filter((ran) => ran !== query);
  if (other.length > 0) lines.push(`Searches run: ${outcome.queries.map((ran) => `"${ran}"`).join(', ')}`);
  lines.push('');
  if (outcome.links.length === 0) lines.push('No results.');
  else {
    lines.push('Links:');
    outcome.links.forEach((link, index) =>
      lines.push(`${index + 1}. ${link.title} — ${link.url}${link.pageAge ? ` (${link.pageAge})` : ''}`),
    );
  }
  if (outcome.errors.length > 0) lines.push('', `The search service reported: ${outcome.errors.join(', ')}.`);
  if (outcome.text) lines.push('', outcome.text);
  return lines.join('\n');
}

/** The WebSearch tool's core, independent of Temporal. */
export function createWebSearch(anthropic: Anthropic): ToolRunner {
  return defineTool('WebSearch', inputSchema, async (input, call, env) => {
    const { model } = call as WebToolCallInput;
    const tool: Anthropic.Messages.WebSearchTool20250305 = {
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: webToolLimits.maxSearchesPerCall,
      ...(input.allowed_domains?.length ? { allowed_domains: input.allowed_domains } : {}),
      ...(input.blocked_domains?.length ? { blocked_domains: input.blocked_domains } : {}),
    };
    const messages: Anthropic.Messages.MessageParam[] = [
      { role: 'user', content: `Perform a web search for the query: ${input.query}` },
    ];
    const outcome: SearchOutcome = { queries: [], links: [], errors: [], text: '' };
    let usage: TokenUsage = emptyTokenUsage();
    for (let continuation = 0; ; continuation++) {
      const answered = await createMessage(
        anthropic,
        { model, max_tokens: webToolLimits.maxAnswerTokens, system: systemPrompt, messages, tools: [tool] },
        { signal: env.signal, headers: toolCallHeaders(call.context.agentId, 'WebSearch') },
      );
      if ('error' in answered) {
        return {
          isError: true,
          content: errorText(ErrorType.WebSearchFailed, `the search could not run: ${answered.error}`),
          usage,
        };
      }
      env.heartbeat();
      env.billed?.(usageOf(answered.message.usage));
      usage = addTokenUsage(usage, usageOf(answered.message.usage));
      collectSearch(answered.message.content, outcome);
      // pause_turn: the server paused a long search loop; sending its content back lets it go on.
      if (answered.message.stop_reason !== 'pause_turn' || continuation >= webToolLimits.maxSearchContinuations) break;
      messages.push({ role: 'assistant', content: answered.message.content as Anthropic.Messages.ContentBlockParam[] });
    }
    const failed = outcome.links.length === 0 && outcome.errors.length > 0;
    return {
      isError: failed,
      content: failed
        ? errorText(ErrorType.WebSearchFailed, formatSearch(input.query, outcome))
        : formatSearch(input.query, outcome),
      usage,
    };
  });
}
