/** Grep's matching and line formatting, free of I/O. */
import { ErrorType } from '../../shared/errors';
import { toolLimits } from '../../shared/tool-definitions';
import { ToolRefusal } from './tool-error';

/** Compiles the model's pattern; an invalid one is refused with the engine's reason. */
export function compilePattern(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): RegExp {
  const flags = `${options.ignoreCase ? 'i' : ''}${options.multiline ? 'gms' : ''}`;
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolRefusal(
      ErrorType.InvalidPattern,
      `${JSON.stringify(pattern)} is not a valid JavaScript regular expression (${(error as Error).message}). ` +
        'Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.',
    );
  }
}

/** The lines of a text as shown: split at \n, a trailing \r dropped, no empty line after a final newline. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** 0-based indexes of the lines that take part in a match, ascending. */
export function findMatchingLines(text: string, lines: readonly string[], regex: RegExp, multiline: boolean): number[] {
  if (!multiline) {
    const matching: number[] = [];
    lines.forEach((line, index) => {
      if (regex.test(line)) matching.push(index);
    });
    return matching;
  }
  const lineStarts = [0];
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', newline + 1)) lineStarts.push(newline + 1);
  const matching = new Set<number>();
  for (const match of text.matchAll(regex)) {
    const start = match.index;
    const end = Math.max(start, start + match[0].length - 1);
    const last = Math.min(lineIndexAt(lineStarts, end), lines.length - 1);
    for (let line = lineIndexAt(lineStarts, start); line <= last; line += 1) matching.add(line);
  }
  return [...matching].sort((left, right) => left - right);
}

function lineIndexAt(lineStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

export interface ContextOptions {
  before: number;
  after: number;
  lineNumbers: boolean;
}

/** Groups of output lines for one file: `path:n:text` for matches, `path-n-text` for context; groups do not touch. */
export function formatContentGroups(shownPath: string, lines: readonly string[], matching: readonly number[], options: ContextOptions): string[][] {
  const matchSet = new Set(matching);
  const groups: string[][] = [];
  let current: string[] = [];
  let lastPrinted = -2;
  for (const match of matching) {
    const from = Math.max(0, match - options.before, lastPrinted + 1);
    const to = Math.min(lines.length - 1, match + options.after);
    if (from > lastPrinted + 1 && current.length > 0) {
      groups.push(current);
      current = [];
    }
    for (let index = from; index <= to; index += 1) {
      const separator = matchSet.has(index) ? ':' : '-';
      const number = options.lineNumbers ? `${index + 1}${separator}` : '';
      current.push(`${shownPath}${separator}${number}${cutLine(lines[index]!)}`);
    }
    lastPrinted = Math.max(lastPrinted, to);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function cutLine(line: string): string {
  const limit = toolLimits.maxLineChars;
  return line.length > limit ? `${line.slice(0, limit)}... [line truncated: ${line.length} characters]` : line;
}
