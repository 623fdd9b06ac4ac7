/** Path confinement: every path a tool touches must resolve, after symlinks, inside the workspace. */
import { ErrorType } from '../../shared/protocol/errors';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '../../shared/tools/tools';
import { agentResultsDir } from './result-limit';
import { ToolRefusal } from './tool-error';
import { isInside } from '../../project/paths';

/** Whether the caller reads or writes: extra read-only roots only count for reads. */
export type PathAccess = 'read' | 'write';

/** The real (symlink-resolved) directories of one call. */
export interface Workspace {
  root: string;
  /** The working directory as given (relative paths resolve against it). */
  cwd: string;
  /** The working directory, symlinks resolved. */
  realCwd: string;
  /** Roots that may be read but not written: the calling agent's own part of the saved-results directory. */
  readOnlyRoots: string[];
  /** Roots outside the workspace that may be read and written (the agent's `memory: user` directory). */
  writableRoots: string[];
}

const maxSymlinkDepth = 40;

/** Real path of `target` even if it does not exist yet: resolves the longest existing ancestor and dangling links. */
export async function realpathAllowMissing(target: string, depth = 0): Promise<string> {
  if (depth > maxSymlinkDepth)
    throw new ToolRefusal(ErrorType.PathOutsideWorkspace, `too many levels of symbolic links at ${target}.`);
  try {
    return await fs.realpath(target);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const link = await fs.lstat(target).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    // A dangling link: whatever gets created through it lands where it points.
    const pointsTo = await fs.readlink(target);
    return realpathAllowMissing(path.resolve(path.dirname(target), pointsTo), depth + 1);
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  return path.join(await realpathAllowMissing(parent, depth), path.basename(target));
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Resolves the workspace of a call; refuses a working directory outside the root. Of each results
 * directory only `<dir>/<agentId>` becomes readable, so no agent reads another agent's saved outputs.
 */
export async function openWorkspace(context: ToolContext, resultsDirs: readonly string[] = []): Promise<Workspace> {
  const root = await realpathAllowMissing(path.resolve(context.workspaceRoot));
  const cwd = path.resolve(context.workspaceRoot, context.cwd);
  const realCwd = await realpathAllowMissing(cwd);
  if (!isInside(realCwd, root)) {
    throw new ToolRefusal(
      ErrorType.PathOutsideWorkspace,
      `the working directory ${cwd} is outside the workspace ${root}.`,
    );
  }
  const realReadOnlyRoots = await Promise.all(
    resultsDirs.map((dir) => realpathAllowMissing(agentResultsDir(path.resolve(dir), context.agentId))),
  );
  const writableRoots =
    context.memoryDir === undefined ? [] : [await realpathAllowMissing(memoryRoot(context.memoryDir))];
  return { root, cwd, realCwd, readOnlyRoots: realReadOnlyRoots, writableRoots };
}

/**
 * A memory directory is `<home>/.claude/agent-memory/<type>` (src/activities/agent-memory.ts); any
 * other path given as one is refused, so a tool context can never open another directory this way.
 */
function memoryRoot(memoryDir: string): string {
  const absolute = path.resolve(memoryDir);
  const parent = path.dirname(absolute);
  const valid =
    path.isAbsolute(memoryDir) &&
    path.basename(parent) === 'agent-memory' &&
    path.basename(path.dirname(parent)) === '.claude' &&
    !/[\0]/.test(memoryDir);
  if (!valid)
    throw new ToolRefusal(
      ErrorType.PathOutsideWorkspace,
      `${memoryDir} is not an agent memory directory (~/.claude/agent-memory/<type>).`,
    );
  return absolute;
}

/** Resolves a path given by the model to its real absolute path, or refuses with PathOutsideWorkspace. */
export async function resolveInWorkspace(workspace: Workspace, rawPath: string, access: PathAccess): Promise<string> {
  if (rawPath.includes('\0')) throw new ToolRefusal(ErrorType.InvalidToolInput, 'the path contains a NUL character.');
  const absolute = path.resolve(workspace.cwd, rawPath);
  const real = await realpathAllowMissing(absolute);
  const roots =
    access === 'read'
      ? [workspace.root, ...workspace.writableRoots, ...workspace.readOnlyRoots]
      : [workspace.root, ...workspace.writableRoots];
  if (roots.some((root) => isInside(real, root))) return real;
  const throughLink = isInside(absolute, workspace.root) ? ' through a symbolic link' : '';
  const readOnly =
    access === 'write' && workspace.readOnlyRoots.some((root) => isInside(real, root))
      ? ' (that directory is read-only)'
      : '';
  throw new ToolRefusal(
    ErrorType.PathOutsideWorkspace,
    `${rawPath} resolves${throughLink} to ${real}, which is outside the workspace ${workspace.root}${readOnly}. Use a path inside the workspace.`,
  );
}

/** How a result path is shown to the model: relative to the working directory when below it, else absolute. */
export function displayPath(workspace: Workspace, realPath: string): string {
  if (realPath !== workspace.realCwd && isInside(realPath, workspace.realCwd)) {
    return path.relative(workspace.realCwd, realPath).split(path.sep).join('/');
  }
  return realPath;
}
