/** Which paths of a repository Glob and Grep skip: `.gitignore` files up the tree and the names never descended into. */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isIgnored, parseGitignore, type IgnoreFile } from './gitignore';
import { runtimeFolderName } from './runtime-output';

/** Directory names never descended into, whatever .gitignore says (`.subagents` is the runtime's own, worktrees included). */
export const alwaysSkippedNames: readonly string[] = ['.git', 'node_modules', runtimeFolderName];

/** Whether Glob and Grep from the repository root would list `target`; undefined outside a repository. */
export async function listingInRepository(target: string): Promise<{ root: string; listed: boolean } | undefined> {
  const absolute = path.resolve(target);
  let root: string | undefined;
  for (let directory = path.dirname(absolute); root === undefined; directory = path.dirname(directory)) {
    if (
      await fs.stat(path.join(directory, '.git')).then(
        () => true,
        () => false,
      )
    )
      root = directory;
    else if (path.dirname(directory) === directory) return undefined;
  }
  const ignoreFiles = await ancestorIgnoreFiles(path.dirname(absolute));
  const segments = path
    .relative(root, absolute)
    .split(path.sep)
    .filter((segment) => segment !== '');
  for (let index = 0; index < segments.length; index += 1) {
    if (alwaysSkippedNames.includes(segments[index]!)) return { root, listed: false };
    const partial = path.join(root, ...segments.slice(0, index + 1));
    const isDirectory =
      index < segments.length - 1 ||
      (await fs.stat(partial).then(
        (stat) => stat.isDirectory(),
        () => false,
      ));
    if (isIgnored(ignoreFiles, partial, isDirectory)) return { root, listed: false };
  }
  return { root, listed: true };
}

/** .gitignore files of `baseDir` and its ancestors, shallowest first, stopping at the first directory holding .git. */
export async function ancestorIgnoreFiles(baseDir: string): Promise<IgnoreFile[]> {
  const found: IgnoreFile[] = [];
  for (let directory = baseDir; ; directory = path.dirname(directory)) {
    const entries = await fs.readdir(directory, { withFileTypes: true }).catch(() => [] as Dirent[]);
    const own = await readIgnoreFile(directory, entries);
    if (own) found.unshift(own);
    if (entries.some((entry) => entry.name === '.git') || path.dirname(directory) === directory) return found;
  }
}

/** The `.gitignore` directly in `directory` (given its entries), parsed; undefined when there is none. */
export async function readIgnoreFile(directory: string, entries: Dirent[]): Promise<IgnoreFile | undefined> {
  const entry = entries.find((candidate) => candidate.name === '.gitignore');
  if (!entry || entry.isDirectory()) return undefined;
  const text = await fs.readFile(path.join(directory, '.gitignore'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : { directory, rules: parseGitignore(text) };
}
