/** Keeping worktree directories out of the main checkout's `git status` without touching tracked files. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorType } from '../../shared/protocol/errors';
import { defaultWorktreeDir } from '../../shared/workspace/worktree';
import { worktreeFailure } from '../../worktree/failures';
import { gitAt } from '../../worktree/git';
import type { Repository } from '../../worktree/repository';
import { isInside } from '../../project/paths';

/** The exclude pattern for a worktree directory, or undefined when it lies outside every checkout of the repository. */
export function excludePattern(repository: Repository, baseDir: string): string | undefined {
  for (const root of [repository.mainRoot, repository.toplevel]) {
    if (!root || !isInside(baseDir, root) || baseDir === root) continue;
    const relative = path.relative(root, baseDir).split(path.sep).join('/');
    const topFolder = defaultWorktreeDir.split('/')[0] ?? '';
    // The default lives under `.subagents/`, which is ignored whole (it may hold other runtime files later).
    return relative === defaultWorktreeDir || relative.startsWith(`${topFolder}/`) ? `${topFolder}/` : `/${relative}/`;
  }
  return undefined;
}

/** Appends `pattern` to the repository's `info/exclude` (shared by all its worktrees) unless it is there already. */
export async function ensureExcluded(repository: Repository, pattern: string): Promise<void> {
  const relative = (await gitAt(repository.toplevel).raw(['rev-parse', '--git-path', 'info/exclude'])).trim();
  const excludeFile = path.resolve(repository.toplevel, relative);
  try {
    const existing = await fs.readFile(excludeFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const bare = pattern.replace(/^\/|\/$/g, '');
    const variants = new Set([pattern, bare, `/${bare}`, `${bare}/`, `/${bare}/`]);
    if (existing.split(/\r?\n/).some((line) => variants.has(line.trim()))) return;
    await fs.mkdir(path.dirname(excludeFile), { recursive: true });
    const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
    await fs.appendFile(excludeFile, `${separator}# subagent worktrees (durable-subagents)\n${pattern}\n`);
  } catch (error) {
    throw worktreeFailure(
      ErrorType.WorktreeCreateFailed,
      `could not add ${pattern} to ${excludeFile} (${(error as Error).message}); ` +
        'worktrees there would show up as untracked files. Make that file writable, or choose a worktree directory outside the repository.',
    );
  }
}
