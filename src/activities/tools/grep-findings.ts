/** What a Grep search found, whichever engine ran it, and how it is shown to the model. */
import { toolLimits } from '../../shared/tools/tool-definitions';

export type GrepMode = 'files_with_matches' | 'content' | 'count';

/** One search, as either engine runs it. */
export interface GrepRequest {
  pattern: string;
  mode: GrepMode;
  ignoreCase: boolean;
  multiline: boolean;
  /** Context lines (content mode). */
  before: number;
  after: number;
  lineNumbers: boolean;
  /** Most output lines kept in content mode (head_limit). */
  cap: number;
}

/** A file with matches: its path as shown, its modification time (files mode) and its count (count mode). */
export interface FileFinding {
  shown: string;
  mtimeMs: number;
  count: number;
}

/** Content lines are at most `cap` (no `--` at either end); `truncated` when more were there. */
export interface GrepFindings {
  files: FileFinding[];
  lines: string[];
  truncated: boolean;
  /** Files the fallback skipped for their size (rg skips none). */
  skippedLarge: number;
}

/** Adds content lines up to the cap, keeping `--` only between groups; false once the cap is passed (stop searching). */
export class ContentCollector {
  readonly lines: string[] = [];
  truncated = false;
  private printed = 0;
  private separatorPending = false;

  constructor(private readonly cap: number) {}

  /** A group separator: shown only if another line follows. */
  separator(): void {
    if (this.printed > 0) this.separatorPending = true;
  }

  /** Adds one line; false when it did not fit (the search can stop). */
  add(line: string): boolean {
    if (this.printed >= this.cap) {
      this.truncated = true;
      return false;
    }
    if (this.separatorPending) this.lines.push('--');
    this.separatorPending = false;
    this.lines.push(line);
    this.printed += 1;
    return true;
  }
}

/** A line of content output: `path:n:text` for a match, `path-n-text` for context. */
export function contentLine(
  shown: string,
  lineNumber: string,
  isMatch: boolean,
  text: string,
  withNumbers: boolean,
): string {
  const separator = isMatch ? ':' : '-';
  return `${shown}${separator}${withNumbers ? `${lineNumber}${separator}` : ''}${text}`;
}

/** The result text: "Found N files" (newest first), per-file counts with a total, or lines; with truncation notes. */
export function formatFindings(mode: GrepMode, findings: GrepFindings, cap: number): string {
  const skippedNote =
    findings.skippedLarge > 0
      ? `\n(skipped ${findings.skippedLarge} files larger than ${toolLimits.grepMaxFileBytes / 1024 / 1024} MiB)`
      : '';
  const { files } = findings;
  switch (mode) {
    case 'files_with_matches': {
      const newestFirst = [...files].sort(
        (left, right) => right.mtimeMs - left.mtimeMs || compareStrings(left.shown, right.shown),
      );
      const shown = newestFirst.slice(0, cap).map((file) => file.shown);
      return `Found ${files.length} ${files.length === 1 ? 'file' : 'files'}\n${shown.join('\n')}${omittedNote(files.length - shown.length)}${skippedNote}`;
    }
    case 'count': {
      const byPath = [...files].sort((left, right) => compareStrings(left.shown, right.shown));
      const shown = byPath.slice(0, cap).map((file) => `${file.shown}:${file.count}`);
      const total = files.reduce((sum, file) => sum + file.count, 0);
      const summary = `\n\nTotal: ${total} matching ${total === 1 ? 'line' : 'lines'} in ${files.length} ${files.length === 1 ? 'file' : 'files'}.`;
      return shown.join('\n') + omittedNote(files.length - shown.length) + summary + skippedNote;
    }
    case 'content': {
      const note = findings.truncated
        ? `\n(results truncated at ${cap} lines; narrow the search with path, glob or type, or raise head_limit)`
        : '';
      return findings.lines.join('\n') + note + skippedNote;
    }
  }
}

/** True when nothing matched. */
export function isEmpty(mode: GrepMode, findings: GrepFindings): boolean {
  return mode === 'content' ? findings.lines.length === 0 : findings.files.length === 0;
}

function omittedNote(omitted: number): string {
  return omitted > 0
    ? `\n(results truncated: ${omitted} more; narrow the search with path, glob or type, or raise head_limit)`
    : '';
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
