/** Thin helpers over simple-git for the worktree activities. */
import { GitError, simpleGit, type SimpleGit } from 'simple-git';

/** A git client running in `directory` (which must exist). */
export function gitAt(directory: string): SimpleGit {
  return simpleGit({ baseDir: directory });
}

/** git's own words for a failure (its stderr), without the trailing newline. */
export function gitErrorText(error: unknown): string {
  if (error instanceof GitError) return error.message.trim();
  return error instanceof Error ? error.message : String(error);
}

/** True when git failed because another git process holds one of the repository's lock files. */
export function isLockContention(error: unknown): boolean {
  return /\.lock'?: File exists|Unable to create '[^']*\.lock'|could not lock/i.test(gitErrorText(error));
}

/** True when `refs/heads/<branch>` exists. */
export async function branchExists(git: SimpleGit, branch: string): Promise<boolean> {
  // `--verify --quiet` exits 1 without stderr for a missing ref, which simple-git does not treat as an error.
  const sha = await git.raw(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  return sha.trim() !== '';
}

/** The commit HEAD points at, or undefined in a repository without commits. */
export async function headCommit(git: SimpleGit, revision = 'HEAD'): Promise<string | undefined> {
  const sha = (await git.raw(['rev-parse', '--verify', '--quiet', `${revision}^{commit}`])).trim();
  return sha === '' ? undefined : sha;
}

/** Paths with uncommitted changes in a working tree, untracked files included (ignored files are not changes). */
export async function changedFiles(worktreePath: string): Promise<string[]> {
  const output = await gitAt(worktreePath).raw(['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const fields = output.split('\0');
  const files: string[] = [];
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index] ?? '';
    if (field.length < 4) continue;
    files.push(field.slice(3));
    // A rename or copy is followed by its source path, which is not a second change.
    if (field[0] === 'R' || field[0] === 'C') index += 1;
  }
  return files;
}

/** `<sha7> <subject>` of the commits reachable from `tips` but not from `base`, newest first. */
export async function commitsSince(git: SimpleGit, base: string, tips: string[]): Promise<string[]> {
  if (tips.length === 0) return [];
  const output = await git.raw(['log', '--format=%H%x09%s', `^${base}`, ...tips, '--']);
  return output
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return `${line.slice(0, 7)} ${line.slice(tab + 1)}`;
    });
}
