/** A git workspace for the rewind tests: checkpoints go to its private refs, flags to a folder git (and so checkpoints) ignores. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where flags live: inside the workspace (the sandboxed Bash sees no other /tmp), excluded from git. */
export const flagsFolder = '.flags';

/** git in `cwd` with a fixed identity (the test machine may have none). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

/** Makes `workspace` a repository with one commit on main (once), ignoring the flags folder. */
export function gitWorkspace(workspace: string): void {
  if (existsSync(path.join(workspace, '.git'))) return;
  git(workspace, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(workspace, '.git', 'info', 'exclude'), `${flagsFolder}/\n`);
  writeFileSync(path.join(workspace, 'README.md'), 'base\n');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'base');
}

/** A new flag's path in the git workspace (not created: the test writes it to release a waiting Bash). */
export function newFlag(workspace: string): string {
  gitWorkspace(workspace);
  const directory = path.join(workspace, flagsFolder);
  mkdirSync(directory, { recursive: true });
  return path.join(mkdtempSync(path.join(directory, 'flag-')), 'flag');
}

/** A Bash command that returns once `flag` exists, or after `seconds`. */
export const waitForFlag = (flag: string, seconds = 100): string =>
  `for i in $(seq 1 ${seconds * 5}); do test -f ${flag} && break; sleep 0.2; done`;

/** Polls `read` until `done` holds (errors count as not yet), or fails after `timeoutMs` naming `what`. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
