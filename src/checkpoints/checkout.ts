/** The git checkout around a directory, asked of git once per directory and then checked cheaply on the disk. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { GitCommandError, runGit } from './git-command';

/** Where a directory sits in its repository. */
export interface Checkout {
  /** Top level of the checkout (main or linked worktree), real path. */
  toplevel: string;
  /** The checkout's own git directory (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The repository's common git directory: refs and objects of all its worktrees. */
  commonDir: string;
}

// A checkpoint runs every turn: asking git where the checkout is costs a process (~10 ms on a small VM) each time.
const known = new Map<string, Checkout>();
/** Directories remembered at most (a worker sees one or a few per agent). */
const maxKnown = 1000;

async function gitDirOfDotGit(dotGit: string): Promise<string | undefined> {
  const stat = await fs.stat(dotGit).catch(() => undefined);
  if (!stat) return undefined;
  if (stat.isDirectory()) return fs.realpath(dotGit);
  // A linked worktree's `.git` file: "gitdir: <path>".
  const match = /^gitdir: (.+)$/m.exec(await fs.readFile(dotGit, 'utf8').catch(() => ''));
  return match ? fs.realpath(path.resolve(path.dirname(dotGit), match[1]!.trim())).catch(() => undefined) : undefined;
}

/** Whether git would still find the same checkout: same `.git` at the top, and none gained between. */
async function stillThere(directory: string, checkout: Checkout): Promise<boolean> {
  if ((await gitDirOfDotGit(path.join(checkout.toplevel, '.git'))) !== checkout.gitDir) return false;
  for (let current = directory; current !== checkout.toplevel; current = path.dirname(current)) {
    if (current === path.dirname(current)) return false;
    const dotGit = await fs.lstat(path.join(current, '.git')).catch(() => undefined);
    if (dotGit) return false;
  }
  return true;
}

async function askGit(directory: string, env: Record<string, string>): Promise<Checkout | undefined> {
  let output: string;
  try {
    output = await runGit({ cwd: directory, env }, [
      'rev-parse',
      '--show-toplevel',
      '--absolute-git-dir',
      '--git-common-dir',
    ]);
  } catch (error) {
    if (error instanceof GitCommandError && /not a git repository/i.test(error.stderr)) return undefined;
    throw error;
  }
  const [toplevel = '', gitDir = '', commonDir = ''] = output.split('\n');
  return {
    toplevel: await fs.realpath(toplevel),
    gitDir: await fs.realpath(gitDir),
    commonDir: await fs.realpath(path.resolve(directory, commonDir)),
  };
}

/** The checkout containing `directory` (a real path); undefined outside any repository. Other git refusals throw. */
export async function findCheckout(directory: string, env: Record<string, string>): Promise<Checkout | undefined> {
  const cached = known.get(directory);
  if (cached && (await stillThere(directory, cached))) return cached;
  known.delete(directory);
  const checkout = await askGit(directory, env);
  if (checkout) {
    if (known.size >= maxKnown) known.delete(known.keys().next().value!);
    known.set(directory, checkout);
  }
  return checkout;
}
