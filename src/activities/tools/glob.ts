/** Glob: files whose path (relative to the search directory) matches a pattern, newest first. */
import { ErrorType } from '../../shared/protocol/errors';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toolLimits } from '../../shared/tools/tool-definitions';
import { listFiles } from './file-list';
import { compileGlob, hasGlobSyntax } from './glob-match';
import { createCheckpoint, resultsDirOf } from './tool-env';
import { ToolRefusal } from './tool-error';
import { defineTool } from './tool-runner';
import { displayPath, openWorkspace, resolveInWorkspace } from './workspace';

/** Input schema (the model is untrusted). */
export const globInput = z.strictObject({
  pattern: z.string().min(1),
  path: z.string().min(1).optional(),
});

/** Splits the leading literal directories off a pattern, so the walk starts as deep as possible. */
export function splitLiteralPrefix(pattern: string): { prefix: string; rest: string } {
  const segments = pattern.split('/');
  let literalCount = 0;
  while (literalCount < segments.length - 1 && !hasGlobSyntax(segments[literalCount]!)) literalCount += 1;
  const prefixSegments = segments.slice(0, literalCount);
  const prefix = prefixSegments.length === 1 && prefixSegments[0] === '' ? '/' : prefixSegments.join('/');
  return { prefix, rest: segments.slice(literalCount).join('/') };
}

/** Runs the Glob tool. */
export const runGlob = defineTool('Glob', globInput, async (input, call, env) => {
  const workspace = await openWorkspace(call.context, [resultsDirOf(env)]);
  const searchRoot = await resolveInWorkspace(workspace, input.path ?? '.', 'read');
  await requireDirectory(searchRoot, input.path ?? '.');
  const { prefix, rest } = splitLiteralPrefix(input.pattern);
  const base =
    prefix === '' ? searchRoot : await resolveInWorkspace(workspace, path.resolve(searchRoot, prefix), 'read');
  const isDirectory = await fs.stat(base).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
  const matcher = compileGlob(rest);
  const relativeMatches = isDirectory ? (await listFiles(base, env)).filter((file) => matcher.test(file)) : [];
  if (relativeMatches.length === 0) {
    return {
      content: `No files found matching ${input.pattern} in ${displayPath(workspace, searchRoot)}.`,
      isError: false,
    };
  }
  const checkpoint = createCheckpoint(env);
  const withTimes: { file: string; mtimeMs: number }[] = [];
  for (const relative of relativeMatches) {
    checkpoint();
    const file = path.join(base, relative);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat) withTimes.push({ file, mtimeMs: stat.mtimeMs });
  }
  withTimes.sort(
    (left, right) => right.mtimeMs - left.mtimeMs || (left.file < right.file ? -1 : left.file > right.file ? 1 : 0),
  );
  const shown = withTimes.slice(0, toolLimits.globMaxResults).map(({ file }) => displayPath(workspace, file));
  const omitted = withTimes.length - shown.length;
  const note = omitted > 0 ? `\n(results truncated: ${omitted} more; narrow the pattern)` : '';
  return { content: shown.join('\n') + note, isError: false };
});

async function requireDirectory(realPath: string, shown: string): Promise<void> {
  const stat = await fs.stat(realPath).catch(() => undefined);
  if (!stat) throw new ToolRefusal(ErrorType.FileNotFound, `${shown} does not exist (resolved to ${realPath}).`);
  if (!stat.isDirectory())
    throw new ToolRefusal(ErrorType.NotADirectory, `${shown} is a file, not a directory; give a directory as path.`);
}
