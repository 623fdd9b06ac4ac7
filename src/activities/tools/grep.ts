/** Grep: ripgrep over the files Glob would see (a JavaScript fallback in a worker thread without it), in three output modes. */
import { ErrorType } from '../../shared/protocol/errors';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toolLimits } from '../../shared/tools/tool-definitions';
import { listFiles } from './file-list';
import { extensionsOfType, fileTypeExtensions } from './file-types';
import { searchWithFallback } from './grep-fallback';
import { formatFindings, isEmpty, type GrepFindings, type GrepRequest } from './grep-findings';
import { searchWithRipgrep } from './grep-ripgrep';
import { compileGlobDecision, splitGlobInput } from './glob-match';
import { booleanInput, integerInput } from './input';
import { ripgrepOf } from './ripgrep';
import { resultsDirOf, type ToolEnv } from './tool-env';
import { ToolRefusal } from './tool-error';
import { defineTool } from './tool-runner';
import { displayPath, openWorkspace, resolveInWorkspace } from './workspace';

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

/** What to search: the real path of the file or directory, and the model's filters. */
interface SearchScope {
  target: string;
  isDirectory: boolean;
  globs: string[];
  extensions: readonly string[] | undefined;
  show: (absolute: string) => string;
}

/** Runs the Grep tool. */
export const runGrep = defineTool('Grep', grepInput, async (input, call, env) => {
  const mode = input.output_mode ?? 'files_with_matches';
  const request: GrepRequest = {
    pattern: input.pattern,
    mode,
    ignoreCase: input['-i'] ?? false,
    multiline: input.multiline ?? false,
    before: input['-B'] ?? input['-C'] ?? 0,
    after: input['-A'] ?? input['-C'] ?? 0,
    lineNumbers: input['-n'] ?? true,
    cap: input.head_limit ?? toolLimits.grepDefaultMaxEntries,
  };
  const extensions = input.type === undefined ? undefined : knownTypeExtensions(input.type);
  const workspace = await openWorkspace(call.context, [resultsDirOf(env)]);
  const target = await resolveInWorkspace(workspace, input.path ?? '.', 'read');
  const targetStat = await fs.stat(target).catch(() => undefined);
  if (!targetStat)
    throw new ToolRefusal(ErrorType.FileNotFound, `${input.path ?? '.'} does not exist (resolved to ${target}).`);
  const scope: SearchScope = {
    target,
    isDirectory: targetStat.isDirectory(),
    globs: input.glob === undefined ? [] : splitGlobInput(input.glob),
    extensions,
    show: (absolute) => displayPath(workspace, absolute),
  };
  const findings = await search(request, scope, env);
  if (isEmpty(mode, findings)) {
    return {
      content: `No matches found for ${JSON.stringify(input.pattern)} in ${displayPath(workspace, target)}.`,
      isError: false,
    };
  }
  return { content: formatFindings(mode, findings, request.cap), isError: false };
});

async function search(request: GrepRequest, scope: SearchScope, env: ToolEnv): Promise<GrepFindings> {
  const ripgrep = await ripgrepOf(env);
  if (ripgrep) {
    const { target, isDirectory } = scope;
    const where = isDirectory
      ? { cwd: target, target: '.' }
      : { cwd: path.dirname(target), target: `./${path.basename(target)}` };
    return searchWithRipgrep(
      ripgrep,
      request,
      { ...where, globs: scope.globs, extensions: scope.extensions, show: scope.show },
      env,
    );
  }
  // An explicitly named file is searched even if ignored or filtered out, as rg does.
  let files = [scope.target];
  if (scope.isDirectory) {
    const accepts = fileFilter(scope);
    files = (await listFiles(scope.target, env)).filter(accepts).map((relative) => path.join(scope.target, relative));
  }
  return searchWithFallback(
    request,
    files.map((file) => ({ path: file, shown: scope.show(file) })),
    env,
  );
}

/** The fallback's version of rg's --glob and --type filters: an including glob overrides the type, as in rg. */
function fileFilter(scope: SearchScope): (relative: string) => boolean {
  const globDecision = compileGlobDecision(scope.globs);
  const { extensions } = scope;
  return (relative) =>
    globDecision(relative) ?? (!extensions || extensions.includes(path.posix.extname(relative).slice(1).toLowerCase()));
}

/** The extensions of a type name; an unknown one is refused with the known ones. */
function knownTypeExtensions(type: string): readonly string[] {
  const extensions = extensionsOfType(type);
  if (!extensions) {
    throw new ToolRefusal(
      ErrorType.InvalidToolInput,
      `unknown type ${JSON.stringify(type)}. Known types: ${Object.keys(fileTypeExtensions).join(', ')}; or use glob instead.`,
    );
  }
  return extensions;
}
