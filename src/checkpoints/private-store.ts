/**
 * The private store of a directory that is not in a git repository: a bare git directory the worker keeps under
 * `${SUBAGENTS_HOME:-~/.subagents}/checkpoints/`, used with GIT_DIR + GIT_WORK_TREE so the directory gets no `.git`.
 */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { runGit, type GitContext } from './git-command';

/** Past either limit a directory is not checkpointed (hashing it every turn would cost more than the turn). */
export const privateStoreLimits = { maxFiles: 20_000, maxBytes: 200 * 1024 * 1024 };

/**
 * Never recorded in a private store, and not counted against its limits: installed dependencies (reinstalled,
 * not restored), the runtime's own folder, and nested repositories' git directories (git records those as links).
 */
export const privateStoreSkipped: readonly string[] = ['node_modules', '.subagents', '.git'];

/** Where the private store of `root` (a real path) lives. */
export function privateStoreDir(root: string, env: NodeJS.ProcessEnv, homeDir: string): string {
  const home = env.SUBAGENTS_HOME && env.SUBAGENTS_HOME !== '' ? env.SUBAGENTS_HOME : path.join(homeDir, '.subagents');
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return path.join(path.resolve(home), 'checkpoints', `${key}.git`);
}

/** Files and bytes below a directory, counted until a limit is passed (then `over` says which). */
export async function measureDirectory(
  root: string,
  limits = privateStoreLimits,
): Promise<{ files: number; bytes: number; over?: 'files' | 'bytes' }> {
  let files = 0;
  let bytes = 0;
  const pending = [root];
  while (pending.length > 0) {
    const directory = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(directory, { withFileTypes: true });
    } catch {
      continue; // unreadable: git cannot record it either
    }
    const sizes: Promise<number>[] = [];
    for (const entry of entries) {
      if (privateStoreSkipped.includes(entry.name)) continue;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        pending.push(full);
        continue;
      }
      files += 1;
      if (files > limits.maxFiles) return { files, bytes, over: 'files' };
      sizes.push(
        entry.isFile()
          ? fs.lstat(full).then(
              (stat) => stat.size,
              () => 0,
            )
          : Promise.resolve(0),
      );
    }
    for (const size of await Promise.all(sizes)) bytes += size;
    if (bytes > limits.maxBytes) return { files, bytes, over: 'bytes' };
  }
  return { files, bytes };
}

/** Creates the store on first use: built aside and renamed into place, so no agent ever sees half of one. */
export async function ensurePrivateStore(gitDir: string, env: Record<string, string>): Promise<void> {
  const exists = await fs.stat(path.join(gitDir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (exists) return;
  await fs.mkdir(path.dirname(gitDir), { recursive: true });
  const building = await fs.mkdtemp(`${gitDir}.building-`);
  try {
    await runGit({ cwd: building, env } satisfies GitContext, ['init', '--quiet', '--bare', building]);
    await fs.writeFile(
      path.join(building, 'info', 'exclude'),
      `# subagents checkpoints: not recorded in the private store\n${privateStoreSkipped.map((name) => `${name}/`).join('\n')}\n`,
    );
    await fs.rename(building, gitDir);
  } catch (error) {
    // Another agent's first use renamed its store into place first: use that one.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  } finally {
    await fs.rm(building, { recursive: true, force: true });
  }
}
