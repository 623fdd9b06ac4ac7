/** Reading the demo's own past steps back out of the conversation, and the tools on offer. */
import type { RequestContext } from './request-types';
import { messageText, toolResultText } from './conversation';
import { isRecord } from './tokens';

/** One tool call the model made earlier in this conversation, with its result if it came back. */
export interface PastToolCall {
  name: string;
  input: Record<string, unknown>;
  result?: string;
  /** The result came back with `is_error` (a refused or failed call). */
  isError?: boolean;
}

/** Every tool_use in the conversation, paired with the tool_result that followed it. */
export function pastToolCalls(context: RequestContext): PastToolCall[] {
  const results = new Map<string, string>();
  const errors = new Set<string>();
  for (const message of context.request.messages) {
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      results.set(String(block.tool_use_id), toolResultText(block));
      if (block.is_error === true) errors.add(String(block.tool_use_id));
    }
  }
  return context.request.messages.flatMap((message) =>
    message.content
      .filter((block) => block.type === 'tool_use')
      .map((block) => {
        const call: PastToolCall = { name: String(block.name), input: isRecord(block.input) ? block.input : {} };
        const result = results.get(String(block.id));
        if (result !== undefined) call.result = result;
        if (errors.has(String(block.id))) call.isError = true;
        return call;
      }),
  );
}

/** The tools offered to the model (none when tool_choice is `none`). */
export function offeredTools(context: RequestContext): Map<string, Set<string>> {
  const offered = new Map<string, Set<string>>();
  if (context.request.toolChoice?.type === 'none') return offered;
  for (const tool of context.request.tools) {
    const schema = isRecord(tool.input_schema) ? tool.input_schema : {};
    const properties = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
    offered.set(tool.name, new Set(properties));
  }
  return offered;
}

/** The text of the first user message: a subagent's task prompt. */
export function firstUserText(context: RequestContext): string {
  const first = context.request.messages.find((message) => message.role === 'user');
  return first ? messageText(first) : '';
}

const pathPattern = /^[\w./@~+-][^\s:]*\.[\w-]+$/;

/** File paths listed in a Glob/Grep result (`path`, or `path:line:text` lines). */
export function listedPaths(result: string | undefined): string[] {
  if (!result) return [];
  const paths: string[] = [];
  for (const rawLine of result.split('\n')) {
    const line = rawLine.trim();
    const candidate = pathPattern.test(line) ? line : (line.split(':')[0] ?? '');
    if (pathPattern.test(candidate) && !paths.includes(candidate)) paths.push(candidate);
  }
  return paths;
}

/** File lines from a Read result, without `cat -n` style line-number prefixes. */
export function fileLines(result: string | undefined): string[] {
  if (!result) return [];
  return result.split('\n').map((line) => line.replace(/^\s*\d+(\t|→|:\s|\s\|\s?)/, ''));
}

/** The first Markdown heading of a file's lines, without the `#`s. */
export function firstHeading(lines: string[]): string | undefined {
  const heading = lines.find((line) => /^#{1,6}\s+\S/.test(line));
  return heading?.replace(/^#+\s+/, '').trim();
}

/** Arguments for Read: path under the schema's own property name, first `limit` lines if supported. */
export function readInput(properties: Set<string> | undefined, path: string, limit: number): Record<string, unknown> {
  const pathKey = properties?.has('file_path') || !properties?.has('path') ? 'file_path' : 'path';
  const input: Record<string, unknown> = { [pathKey]: path };
  if (properties?.has('limit')) input.limit = limit;
  return input;
}

export const clip = (text: string, length: number): string =>
  text.length <= length ? text : `${text.slice(0, length - 1)}…`;
