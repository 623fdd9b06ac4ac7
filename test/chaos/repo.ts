// A run's workspace: a fresh git repository with a few files (the worktree child branches from it).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bashSleepSeconds } from './plan';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });

/**
 * Creates `<runDir>/repo` with one commit. With `hookLog`, a post-checkout hook (which `git worktree
 * add` runs) appends a line to it and sleeps 3 s: the window in which the suite kills the worker
 * "during worktree creation". git and the hook outlive the killed worker, so the retried
 * createWorktree activity finds a worktree without its ownership marker.
 */
export function createRepo(runDir: string, hookLog?: string): string {
  const repo = path.join(runDir, 'repo');
  mkdirSync(path.join(repo, 'notes'), { recursive: true });
  writeFileSync(path.join(repo, 'shared.txt'), 'version: original\n');
  writeFileSync(path.join(repo, 'README.txt'), 'A scratch repository of the chaos suite.\n');
  writeFileSync(path.join(repo, 'notes', 'a.txt'), 'note a\n');
  writeFileSync(path.join(repo, 'notes', 'b.txt'), 'note b\n');
  // Bash runs sandboxed to its workspace: the suites' marker files beside the repository must stay writable.
  mkdirSync(path.join(repo, '.claude'), { recursive: true });
  writeFileSync(
    path.join(repo, '.claude', 'settings.json'),
    `${JSON.stringify({ sandbox: { filesystem: { allowWrite: [runDir] } } }, null, 2)}\n`,
  );
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Chaos Suite');
  git(repo, 'config', 'user.email', 'chaos@example.com');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'initial');
  if (hookLog) {
    const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, `#!/bin/sh\necho "post-checkout pid $$" >> '${hookLog}'\nsleep ${bashSleepSeconds + 1}\n`);
    chmodSync(hook, 0o755);
  }
  return repo;
}
