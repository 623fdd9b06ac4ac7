/** The demo's Explore agent: grep for a word from its task, read the top match, quote it. */
import type { RequestContext } from './request-types';
import {
  clip,
  fileLines,
  firstUserText,
  listedPaths,
  offeredTools,
  pastToolCalls,
  readInput,
  type PastToolCall,
} from './demo-history';
import { toolUseId } from './ids';
import type { ModelReply } from './reply';

const maxExploreTurns = 6;
const quotedLines = 5;

/** Task words that map to a search pattern; plain words, valid in any regex dialect. */
const keywordTable: Array<[RegExp, string]> = [
  [/workflow/i, 'workflow'],
  [/\bcli\b|command/i, 'command'],
  [/activit/i, 'activit'],
  [/\btests?\b/i, 'describe'],
];
const stopWords = new Set([
  'find',
  'where',
  'what',
  'which',
  'that',
  'this',
  'with',
  'from',
  'them',
  'they',
  'into',
  'about',
  'summarise',
  'summarize',
  'defined',
  'there',
]);

/** Files a person would not quote as "the top match": lock files, generated and vendored output, recorded fixtures. */
const notWorthReading =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|[^/]+\.lock|[^/]+\.min\.js)$|(^|\/)(node_modules|dist|coverage|\.git|test-results|fixtures)\//;

/** Matches as a person would rank them: source first, then the rest, never lock files or generated output. */
export function rankedMatches(paths: readonly string[]): string[] {
  const readable = paths.filter((path) => !notWorthReading.test(path));
  const source = readable.filter((path) => /(^|\/)src\//.test(path));
  return [...source, ...readable.filter((path) => !source.includes(path))];
}

/** The word an Explore agent searches for, taken from its prompt. */
export function searchKeyword(prompt: string): string {
  const known = keywordTable.find(([pattern]) => pattern.test(prompt));
  if (known) return known[1];
  const words = (prompt.match(/[A-Za-z][A-Za-z0-9_]{3,}/g) ?? []).filter((word) => !stopWords.has(word.toLowerCase()));
  return words.sort((left, right) => right.length - left.length)[0] ?? 'TODO';
}

function grepInput(properties: Set<string>, keyword: string): Record<string, unknown> {
  const input: Record<string, unknown> = { pattern: keyword };
  for (const flag of ['-i', 'ignore_case', 'case_insensitive', 'ignoreCase'])
    if (properties.has(flag)) input[flag] = true;
  if (properties.has('output_mode')) input.output_mode = 'files_with_matches';
  return input;
}

function finalAnswer(keyword: string, search: PastToolCall | undefined, read: PastToolCall | undefined): ModelReply {
  const lines: string[] = [];
  if (!search) {
    lines.push(`I have no search tool, so I could not look for "${keyword}".`);
  } else {
    const matches = rankedMatches(listedPaths(search.result));
    const examples = matches.slice(0, 5).join(', ');
    lines.push(
      `Searched for "${keyword}": ${matches.length} matching file(s)${matches.length > 0 ? `: ${examples}` : ''}.`,
    );
  }
  const path = read ? String(read.input.file_path ?? read.input.path) : undefined;
  if (read && path) {
    const quoted = fileLines(read.result)
      .filter((line) => line.trim() !== '')
      .slice(0, quotedLines);
    lines.push(`Top match: ${path}. Its first lines:`, ...quoted.map((line) => `> ${clip(line, 160)}`));
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], stopReason: 'end_turn' };
}

/** Decides the Explore agent's next step from the conversation alone. */
export function exploreStep(context: RequestContext, agentKey: string): ModelReply {
  const tools = offeredTools(context);
  const calls = pastToolCalls(context);
  const keyword = searchKeyword(firstUserText(context));
  const search = calls.find((call) => call.name === 'Grep' || call.name === 'Glob');
  const read = calls.find((call) => call.name === 'Read');
  const use = (text: string, name: string, input: Record<string, unknown>): ModelReply => ({
    content: [
      { type: 'text', text },
      { type: 'tool_use', id: toolUseId(agentKey, context.turnIndex, 1), name, input },
    ],
    stopReason: 'tool_use',
  });
  if (context.turnIndex >= maxExploreTurns) return finalAnswer(keyword, search, read);

  if (!search) {
    const grep = tools.get('Grep');
    if (grep) return use(`Searching for "${keyword}".`, 'Grep', grepInput(grep, keyword));
    if (tools.has('Glob'))
      return use(`Looking for files named like "${keyword}".`, 'Glob', { pattern: `**/*${keyword}*` });
    return finalAnswer(keyword, undefined, undefined);
  }
  const top = rankedMatches(listedPaths(search.result))[0];
  if (top && !read && tools.has('Read')) {
    return use(`Reading the top match, ${top}.`, 'Read', readInput(tools.get('Read'), top, 40));
  }
  return finalAnswer(keyword, search, read);
}
