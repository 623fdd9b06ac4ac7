import { parseDocument } from 'yaml';

/** A definition file cut at its `---` fences. */
export type SplitFile = { type: 'split'; frontMatter: string; body: string } | { type: 'error'; reason: string };

const fence = /^---[ \t]*$/;

/** Splits `---`-fenced front matter from the Markdown body (BOM and CRLF tolerated). */
export function splitFrontMatter(text: string): SplitFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!fence.test(lines[0] ?? '')) {
    return { type: 'error', reason: 'no YAML front matter: the file must start with a line of three dashes (---)' };
  }
  const closing = lines.findIndex((line, index) => index > 0 && fence.test(line));
  if (closing === -1) return { type: 'error', reason: 'the front matter is not closed: no second --- line' };
  return { type: 'split', frontMatter: lines.slice(1, closing).join('\n'), body: lines.slice(closing + 1).join('\n') };
}

/** Parsed front matter, and a note when it only parsed after quoting plain values. */
export type ParsedFrontMatter =
  { type: 'parsed'; fields: Record<string, unknown>; note?: string } | { type: 'error'; reason: string };

function parseYaml(source: string): { value: unknown } | { error: string } {
  const document = parseDocument(source, { prettyErrors: true, uniqueKeys: true });
  const [first] = document.errors;
  if (first) return { error: (first.message.split('\n')[0] ?? first.message).replace(/:$/, '') };
  return { value: document.toJS({ maxAliasCount: 100 }) };
}

// A top-level `key: value` line with a plain (unquoted, one-line) value.
const plainLine = /^([A-Za-z_][\w-]*):[ \t]+([^'"[{|>&*!%@`\s].*?)[ \t]*$/;

/** Quotes plain values, the only repair tried: hand-written descriptions often hold colons ("Use when: ..."). */
function quotePlainValues(source: string): string {
  return source
    .split('\n')
    .map((line) => {
      const match = plainLine.exec(line);
      if (!match?.[2]?.includes(': ')) return line;
      return `${match[1]}: ${JSON.stringify(match[2])}`;
    })
    .join('\n');
}

/** Parses front matter YAML into a mapping; never throws. */
export function parseFrontMatter(source: string): ParsedFrontMatter {
  let parsed = parseYaml(source);
  let note: string | undefined;
  if ('error' in parsed) {
    const repaired = quotePlainValues(source);
    const retry = repaired === source ? parsed : parseYaml(repaired);
    if ('error' in retry) return { type: 'error', reason: `invalid YAML in the front matter: ${parsed.error}` };
    note = `the front matter is not valid YAML (${parsed.error}); it was read with its one-line values quoted — quote them in the file`;
    parsed = retry;
  }
  const { value } = parsed;
  if (value === null || value === undefined)
    return { type: 'error', reason: 'the front matter is empty: name and description are required' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { type: 'error', reason: 'the front matter must be a YAML mapping (key: value lines)' };
  }
  return note === undefined
    ? { type: 'parsed', fields: value as Record<string, unknown> }
    : { type: 'parsed', fields: value as Record<string, unknown>, note };
}
