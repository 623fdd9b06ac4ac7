/** Shell-style globs compiled to regular expressions over '/'-separated relative paths. */

export interface GlobOptions {
  /** Expand {a,b} alternatives (globs do, .gitignore patterns do not). */
  braces?: boolean;
}

/** Regular-expression source (unanchored) for a glob: ** spans directories, * and ? stay within one segment. */
export function globToRegExpSource(pattern: string, options: GlobOptions = {}): string {
  const braces = options.braces ?? true;
  let index = 0;

  const parseSequence = (inBrace: boolean): string => {
    let source = '';
    while (index < pattern.length) {
      const char = pattern[index]!;
      if (inBrace && (char === ',' || char === '}')) return source;
      if (char === '\\') {
        const next = pattern[index + 1];
        source += escapeRegExp(next ?? '\\');
        index += next === undefined ? 1 : 2;
      } else if (char === '*') {
        source += parseStars(inBrace);
      } else if (char === '?') {
        source += '[^/]';
        index += 1;
      } else if (char === '[') {
        source += parseClass() ?? '\\[';
      } else if (char === '{' && braces) {
        source += parseBraces() ?? '\\{';
      } else {
        source += escapeRegExp(char);
        index += 1;
      }
    }
    return source;
  };

  const parseStars = (inBrace: boolean): string => {
    const start = index;
    while (pattern[index] === '*') index += 1;
    const before = start === 0 ? '/' : pattern[start - 1]!;
    const after = pattern[index];
    const startsSegment = before === '/' || (braces && (before === '{' || before === ','));
    const endsSegment = after === undefined || after === '/' || (inBrace && (after === ',' || after === '}'));
    if (index - start < 2 || !startsSegment || !endsSegment) return '[^/]*';
    if (after === '/') {
      index += 1;
      return '(?:[^/]*/)*';
    }
    return '.*';
  };

  // [abc], [a-z], [!abc] / [^abc]; never matches '/'. Unclosed: the caller treats '[' literally.
  const parseClass = (): string | undefined => {
    let cursor = index + 1;
    const negated = pattern[cursor] === '!' || pattern[cursor] === '^';
    if (negated) cursor += 1;
    let body = '';
    let first = true;
    while (cursor < pattern.length && (pattern[cursor] !== ']' || first)) {
      const char = pattern[cursor]!;
      if (char === '\\' && cursor + 1 < pattern.length) {
        body += `\\${pattern[cursor + 1]}`;
        cursor += 2;
      } else {
        body += char === '-' ? '-' : escapeClassChar(char);
        cursor += 1;
      }
      first = false;
    }
    if (cursor >= pattern.length) {
      index += 1;
      return undefined;
    }
    index = cursor + 1;
    return negated ? `[^/${body}]` : `(?!/)[${body}]`;
  };

  // {a,b,...}; a group without a top-level comma, or unclosed, is literal.
  const parseBraces = (): string | undefined => {
    const start = index;
    index += 1;
    const alternatives: string[] = [];
    for (;;) {
      alternatives.push(parseSequence(true));
      const stop = pattern[index];
      index += 1;
      if (stop === '}') break;
      if (stop !== ',') {
        index = start + 1;
        return undefined;
      }
    }
    if (alternatives.length < 2) {
      index = start + 1;
      return undefined;
    }
    return `(?:${alternatives.join('|')})`;
  };

  return parseSequence(false);
}

/** A glob anchored at both ends. */
export function compileGlob(pattern: string, options: GlobOptions = {}): RegExp {
  return new RegExp(`^${globToRegExpSource(pattern, options)}$`);
}

/** True when a path segment contains glob syntax. */
export function hasGlobSyntax(segment: string): boolean {
  return /[*?[{\\]/.test(segment);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function escapeClassChar(char: string): string {
  return /[\]\\^[]/.test(char) ? `\\${char}` : char;
}
