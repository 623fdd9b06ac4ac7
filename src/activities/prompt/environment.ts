// The system prompt's place and git snapshot: only what agents of one type and place share, for one cache entry.
import os from 'node:os';
import { simpleGit, type StatusResult } from 'simple-git';
import { repositoryRoot } from './instructions';

/** Tracked files listed at most; the rest are counted. */
const maxListedChanges = 20;

/** The `<env>` block. */
export function environmentBlock(options: {
  cwd: string;
  isGitRepository: boolean;
  model: string;
  date: string;
}): string {
  return [
    '<env>',
    `Working directory: ${options.cwd}`,
    `Is a git repository: ${options.isGitRepository ? 'yes' : 'no'}`,
    `Platform: ${os.platform()}`,
    `Today's date: ${options.date}`,
    `Model: ${options.model}`,
    '</env>',
  ].join('\n');
}

/** One changed tracked file as `git status --short` prints it. */
export function statusLine(file: StatusResult['files'][number]): string {
  const from = file.from && file.from !== file.path ? `${file.from} -> ` : '';
  return `${file.index}${file.working_dir} ${from}${file.path}`;
}

/** Whether `cwd` may be in a repository, found without starting git (docs/operations.md). */
function mayBeRepository(cwd: string): boolean {
  return process.env.GIT_DIR !== undefined || repositoryRoot(cwd) !== undefined;
}

/** The git snapshot for full prompts; undefined outside a repository. */
export async function gitSnapshot(cwd: string): Promise<{ isGitRepository: boolean; text?: string }> {
  if (!mayBeRepository(cwd)) return { isGitRepository: false };
  try {
    const git = simpleGit({ baseDir: cwd });
    // Status and log side by side: a `.git` that is no repository fails status, which says "no".
    const [status, log] = await Promise.all([
      git.status(['--untracked-files=no']),
      git.log({ maxCount: 5 }).catch(() => undefined),
    ]);
    const tracked = status.files.filter((file) => file.index !== '?' && file.working_dir !== '?');
    const lines = [
      '# Git status',
      'This is the git status when you started. It is a snapshot: it does not change as you or other agents work. Untracked files are not listed.',
      `Current branch: ${status.current ?? '(detached HEAD)'}`,
      tracked.length === 0
        ? 'Tracked changes: none'
        : `Tracked changes (staged column, unstaged column, path): ${tracked.length}`,
      ...tracked.slice(0, maxListedChanges).map((file) => `  ${statusLine(file)}`),
      ...(tracked.length > maxListedChanges ? [`  ... and ${tracked.length - maxListedChanges} more`] : []),
    ];
    if (log?.all.length)
      lines.push('Recent commits:', ...log.all.map((commit) => `  ${commit.hash.slice(0, 7)} ${commit.message}`));
    return { isGitRepository: true, text: lines.join('\n') };
  } catch {
    return { isGitRepository: false };
  }
}
