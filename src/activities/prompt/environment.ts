/**
 * The environment facts of the system prompt: where the agent works and, for full prompts, a
 * snapshot of git. Only what agents of one type in one place share goes here (no agent id, no
 * untracked files), so their system prompts are byte-identical and share a cache entry; the
 * agent's own identity is in its first message (agent-context.ts).
 */
import os from 'node:os';
import { simpleGit, type StatusResult } from 'simple-git';
import { repositoryRoot } from './instructions';

/** Tracked files listed at most; the rest are counted. */
const maxListedChanges = 20;

/** The `<env>` block. */
export function environmentBlock(options: { cwd: string; isGitRepository: boolean; model: string; date: string }): string {
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

/**
 * One changed tracked file as `git status --short` prints it: the staged (index) column, then the
 * unstaged (working tree) column, then the path.
 */
export function statusLine(file: StatusResult['files'][number]): string {
  const from = file.from && file.from !== file.path ? `${file.from} -> ` : '';
  return `${file.index}${file.working_dir} ${from}${file.path}`;
}

/**
 * Whether `cwd` may be inside a repository, without starting git: a `.git` in it or above it (git's
 * own discovery), unless GIT_DIR points elsewhere. Starting a process costs about 15 ms here, and
 * every agent renders this at its start.
 */
function mayBeRepository(cwd: string): boolean {
  return process.env.GIT_DIR !== undefined || repositoryRoot(cwd) !== undefined;
}

/** The git snapshot for full prompts; undefined outside a repository. */
export async function gitSnapshot(cwd: string): Promise<{ isGitRepository: boolean; text?: string }> {
  if (!mayBeRepository(cwd)) return { isGitRepository: false };
  try {
    const git = simpleGit({ baseDir: cwd });
    // Status and log side by side: a `.git` that is no repository fails status, which says "no".
    const [status, log] = await Promise.all([git.status(['--untracked-files=no']), git.log({ maxCount: 5 }).catch(() => undefined)]);
    const tracked = status.files.filter((file) => file.index !== '?' && file.working_dir !== '?');
    const lines = [
      '# Git status',
      'This is the git status when you started. It is a snapshot: it does not change as you or other agents work. Untracked files are not listed.',
      `Current branch: ${status.current ?? '(detached HEAD)'}`,
      tracked.length === 0 ? 'Tracked changes: none' : `Tracked changes (staged column, unstaged column, path): ${tracked.length}`,
      ...tracked.slice(0, maxListedChanges).map((file) => `  ${statusLine(file)}`),
      ...(tracked.length > maxListedChanges ? [`  ... and ${tracked.length - maxListedChanges} more`] : []),
    ];
    if (log?.all.length) lines.push('Recent commits:', ...log.all.map((commit) => `  ${commit.hash.slice(0, 7)} ${commit.message}`));
    return { isGitRepository: true, text: lines.join('\n') };
  } catch {
    return { isGitRepository: false };
  }
}
