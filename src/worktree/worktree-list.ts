/** Parsing of `git worktree list --porcelain`. */
import path from 'node:path';
import type { SimpleGit } from 'simple-git';

/** One working tree registered in a repository. */
export interface RegisteredWorktree {
  path: string;
  head?: string;
  /** Short branch name (`refs/heads/` removed); undefined when detached or bare. */
  branch?: string;
  bare: boolean;
  locked: boolean;
}

/** Parses porcelain output: blocks of `key value` lines separated by blank lines. */
export function parseWorktreeList(output: string): RegisteredWorktree[] {
  const worktrees: RegisteredWorktree[] = [];
  let current: RegisteredWorktree | undefined;
  for (const line of output.split('\n')) {
    const space = line.indexOf(' ');
    const key = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    if (key === 'worktree') {
      current = { path: path.resolve(value), bare: false, locked: false };
      worktrees.push(current);
    } else if (!current) continue;
    else if (key === 'HEAD') current.head = value;
    else if (key === 'branch') current.branch = value.replace(/^refs\/heads\//, '');
    else if (key === 'bare') current.bare = true;
    else if (key === 'locked') current.locked = true;
  }
  return worktrees;
}

/** Every working tree of the repository, the main one first (git always lists it first). */
export async function listWorktrees(git: SimpleGit): Promise<RegisteredWorktree[]> {
  return parseWorktreeList(await git.raw(['worktree', 'list', '--porcelain']));
}
