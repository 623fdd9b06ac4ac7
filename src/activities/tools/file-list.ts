/** Lists the files below a directory the way Glob and Grep see them: .gitignore respected, .git, node_modules and .subagents skipped. */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isIgnored, type IgnoreFile } from '../../project/gitignore';
import { alwaysSkippedNames, ancestorIgnoreFiles, readIgnoreFile } from '../../project/ignore-files';
import { listFilesWithRipgrep, ripgrepOf } from './ripgrep';
import { createCheckpoint, type ToolEnv } from './tool-env';

/** Trees this small are walked in process: starting `rg` blocks the event loop (docs/operations.md). */
export const inProcessListingMaxEntries = 2_000;

/** Sorted '/'-separated paths, relative to `baseDir`, of the files below it; `rg --files` for large trees when available. */
export async function listFiles(baseDir: string, env: ToolEnv): Promise<string[]> {
  const ripgrep = await ripgrepOf(env);
  if (!ripgrep) return listFilesWithWalk(baseDir, env);
  return (await walkFiles(baseDir, env, inProcessListingMaxEntries)) ?? listFilesWithRipgrep(ripgrep, baseDir, env);
}

/** Thrown inside the walk when it has seen more entries than it may. */
class TooManyEntries extends Error {}

/** The built-in walker, by the rules of `rg --files --hidden --no-require-git`; symbolic links skipped. */
export async function listFilesWithWalk(baseDir: string, env: ToolEnv): Promise<string[]> {
  return (await walkFiles(baseDir, env, Number.POSITIVE_INFINITY))!;
}

/** The walk; undefined as soon as it has read more than `maxEntries` directory entries. */
async function walkFiles(baseDir: string, env: ToolEnv, maxEntries: number): Promise<string[] | undefined> {
  const checkpoint = createCheckpoint(env);
  const files: string[] = [];
  let seen = 0;

  const walk = async (directory: string, relative: string, inherited: IgnoreFile[], isBase: boolean): Promise<void> => {
    checkpoint();
    let entries: Dirent[];
    try {
      entries = await fs.readdir(directory, { withFileTypes: true });
    } catch {
      return; // unreadable or vanished: skipped, as rg does
    }
    seen += entries.length;
    if (seen > maxEntries) throw new TooManyEntries();
    let ignoreFiles = inherited;
    if (!isBase) {
      // Rules from above a repository root do not apply inside it.
      if (entries.some((entry) => entry.name === '.git')) ignoreFiles = [];
      const own = await readIgnoreFile(directory, entries);
      if (own) ignoreFiles = [...ignoreFiles, own];
    }
    for (const entry of entries) {
      if (alwaysSkippedNames.includes(entry.name)) continue;
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile()) continue;
      const absolute = path.join(directory, entry.name);
      if (isIgnored(ignoreFiles, absolute, isDirectory)) continue;
      const entryRelative = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (isDirectory) await walk(absolute, entryRelative, ignoreFiles, false);
      else files.push(entryRelative);
    }
  };

  try {
    await walk(baseDir, '', await ancestorIgnoreFiles(baseDir), true);
  } catch (error) {
    if (error instanceof TooManyEntries) return undefined;
    throw error;
  }
  return files.sort();
}
