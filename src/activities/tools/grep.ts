/** Grep: regular-expression search over the files Glob would see, in three output modes. */
import { ErrorType } from '../../shared/errors';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toolLimits } from '../../shared/tool-definitions';
import { listFiles } from './file-list';
import { looksBinary } from './file-record';
import { extensionsOfType, fileTypeExtensions } from './file-types';
import { compileGlob } from './glob-match';
import { compilePattern, findMatchingLines, formatContentGroups, splitLines, type ContextOptions } from './grep-search';
import { booleanInput, integerInput } from './input';
import { createCheckpoint, resultsDirOf } from './tool-env';
import { ToolRefusal } from './tool-error';
import { defineTool } from './tool-runner';
import { displayPath, openWorkspace, resolveInWorkspace, type Workspace } from './workspace';

/** Input schema (the model is untrusted). */
export const grepInput = z.strictObject({
  pattern: z.string().min(1),
  path: z.string().min(1).optional(),
  glob: z.string().min(1).optional(),
  type: z.string().min(1).optional(),
  output_mode: z.enum(['files_with_matches', 'content', 'count']).optional(),
  '-i': booleanInput().optional(),
  '-n': booleanInput().optional(),
  '-A': integerInput(0).optional(),
  '-B': integerInput(0).optional(),
  '-C': integerInput(0).optional(),
  head_limit: integerInput(1).optional(),
  multiline: booleanInput().optional(),
});

type GrepInput = z.output<typeof grepInput>;

/** Files searched at once. */
const batchSize = 16;

interface FileMatches {
  file: string;
  mtimeMs: number;
  matchingLineCount: number;
  /** Output groups, content mode only. */
  groups: string[][];
}

/** Runs the Grep tool. */
export const runGrep = defineTool('Grep', grepInput, async (input, call, env) => {
  const mode = input.output_mode ?? 'files_with_matches';
  const multiline = input.multiline ?? false;
  const regex = compilePattern(input.pattern, { ignoreCase: input['-i'] ?? false, multiline });
  const acceptsFile = fileFilter(input);
  const workspace = await openWorkspace(call.context, [resultsDirOf(env)]);
  const target = await resolveInWorkspace(workspace, input.path ?? '.', 'read');
  const targetStat = await fs.stat(target).catch(() => undefined);
  if (!targetStat) throw new ToolRefusal(ErrorType.FileNotFound, `${input.path ?? '.'} does not exist (resolved to ${target}).`);

  // An explicitly named file is searched even if ignored or filtered out, as rg does.
  const files = targetStat.isDirectory()
    ? (await listFiles(target, env)).filter(acceptsFile).map((relative) => path.join(target, relative))
    : [target];
  const context: ContextOptions = {
    before: input['-B'] ?? input['-C'] ?? 0,
    after: input['-A'] ?? input['-C'] ?? 0,
    lineNumbers: input['-n'] ?? true,
  };
  const checkpoint = createCheckpoint(env);
  const found: FileMatches[] = [];
  let skippedLarge = 0;
  for (let start = 0; start < files.length; start += batchSize) {
    checkpoint();
    const batch = await Promise.all(
      files.slice(start, start + batchSize).map(async (file) => {
        const stat = await fs.stat(file).catch(() => undefined);
        if (!stat?.isFile()) return undefined;
        if (stat.size > toolLimits.grepMaxFileBytes) {
          skippedLarge += 1;
          return undefined;
        }
        const content = await fs.readFile(file).catch(() => undefined);
        if (!content || looksBinary(content)) return undefined;
        const text = content.toString('utf8');
        const lines = splitLines(text);
        const matching = findMatchingLines(text, lines, regex, multiline);
        if (matching.length === 0) return undefined;
        const groups = mode === 'content' ? formatContentGroups(displayPath(workspace, file), lines, matching, context) : [];
        return { file, mtimeMs: stat.mtimeMs, matchingLineCount: matching.length, groups };
      }),
    );
    for (const matches of batch) if (matches) found.push(matches);
  }

  const skippedNote = skippedLarge > 0 ? `\n(skipped ${skippedLarge} files larger than ${toolLimits.grepMaxFileBytes / 1024 / 1024} MiB)` : '';
  if (found.length === 0) {
    return { content: `No matches found for ${JSON.stringify(input.pattern)} in ${displayPath(workspace, target)}.${skippedNote}`, isError: false };
  }
  const cap = input.head_limit ?? toolLimits.grepDefaultMaxEntries;
  const body = formatResults(mode, found, workspace, cap, context.before + context.after > 0);
  return { content: body + skippedNote, isError: false };
});

/** Filter from the glob and type inputs; unknown types are refused. */
function fileFilter(input: GrepInput): (relative: string) => boolean {
  const checks: ((relative: string) => boolean)[] = [];
  if (input.glob !== undefined) {
    const excluded = input.glob.startsWith('!');
    const glob = excluded ? input.glob.slice(1) : input.glob;
    const matcher = compileGlob(glob);
    // Like rg: a glob without '/' matches the file name at any depth.
    const subject = glob.includes('/') ? (relative: string) => relative : (relative: string) => path.posix.basename(relative);
    checks.push((relative) => matcher.test(subject(relative)) !== excluded);
  }
  if (input.type !== undefined) {
    const extensions = extensionsOfType(input.type);
    if (!extensions) {
      throw new ToolRefusal(ErrorType.InvalidToolInput, `unknown type ${JSON.stringify(input.type)}. Known types: ${Object.keys(fileTypeExtensions).join(', ')}; or use glob instead.`);
    }
    checks.push((relative) => extensions.includes(path.posix.extname(relative).slice(1).toLowerCase()));
  }
  return (relative) => checks.every((check) => check(relative));
}

function formatResults(mode: NonNullable<GrepInput['output_mode']>, found: FileMatches[], workspace: Workspace, cap: number, withContext: boolean): string {
  const byPath = [...found].sort((left, right) => compareStrings(left.file, right.file));
  switch (mode) {
    case 'files_with_matches': {
      const newestFirst = [...found].sort((left, right) => right.mtimeMs - left.mtimeMs || compareStrings(left.file, right.file));
      const shown = newestFirst.slice(0, cap).map((matches) => displayPath(workspace, matches.file));
      return `Found ${found.length} ${found.length === 1 ? 'file' : 'files'}\n${shown.join('\n')}${truncationNote(found.length - shown.length)}`;
    }
    case 'count': {
      const shown = byPath.slice(0, cap).map((matches) => `${displayPath(workspace, matches.file)}:${matches.matchingLineCount}`);
      const total = found.reduce((sum, matches) => sum + matches.matchingLineCount, 0);
      const summary = `\n\nTotal: ${total} matching ${total === 1 ? 'line' : 'lines'} in ${found.length} ${found.length === 1 ? 'file' : 'files'}.`;
      return shown.join('\n') + truncationNote(found.length - shown.length) + summary;
    }
    case 'content': {
      const output: string[] = [];
      let printed = 0;
      let omitted = 0;
      for (const group of byPath.flatMap((matches) => matches.groups)) {
        const room = cap - printed;
        if (room <= 0) {
          omitted += group.length;
          continue;
        }
        if (withContext && output.length > 0) output.push('--');
        output.push(...group.slice(0, room));
        printed += Math.min(room, group.length);
        omitted += Math.max(0, group.length - room);
      }
      return output.join('\n') + truncationNote(omitted);
    }
  }
}

function truncationNote(omitted: number): string {
  return omitted > 0 ? `\n(results truncated: ${omitted} more; narrow the search with path, glob or type, or raise head_limit)` : '';
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
