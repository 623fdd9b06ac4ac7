/** Finding the repository around a directory. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { gitAt } from './git';
import { listWorktrees } from './worktree-list';

/** Where a directory sits in its repository. */
export interface Repository {
  /** Top level of the checkout (main or linked worktree) that contains the directory. */
  toplevel: string;
  /** The repository's common git directory (shared by all its worktrees). */
  commonDir: string;
  /** Root of the main checkout; undefined for a bare repository. */
  mainRoot?: string;
  /** Where repository-wide commands run: the main checkout, or the git directory of a bare repository. */
  controlDir: string;
}

/** The real path of a directory, or undefined when it is missing or not a directory. */
export async function realDirectory(directory: string): Promise<string | undefined> {
  try {
    const real = await fs.realpath(directory);
    return (await fs.stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The repository containing `directory` (inside a working tree), or undefined. */
export async function locateRepository(directory: string): Promise<Repository | undefined> {
  const real = await realDirectory(directory);
  if (!real) return undefined;
  let toplevel: string;
  try {
    toplevel = (await gitAt(real).raw(['rev-parse', '--show-toplevel'])).trim();
  } catch {
    // Not a repository, or inside a .git directory: either way there is no working tree to branch from.
    return undefined;
  }
  if (toplevel === '') return undefined;
  toplevel = await fs.realpath(toplevel);
  const git = gitAt(toplevel);
  const commonDir = await fs.realpath(
    path.resolve(toplevel, (await git.raw(['rev-parse', '--git-common-dir'])).trim()),
  );
  const main = (await listWorktrees(git))[0];
  const mainRoot = main && !main.bare ? await realDirectory(main.path) : undefined;
  return { toplevel, commonDir, ...(mainRoot ? { mainRoot } : {}), controlDir: mainRoot ?? commonDir };
}
