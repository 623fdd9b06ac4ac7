/** Lock files a killed worker left behind in the checkpoint store's own files (never the user's). */
import fs from 'node:fs/promises';
import path from 'node:path';
import { GitCommandError } from './git-command';

/** A lock of ours older than this is a leftover: git holds one only for the length of one short command. */
export const staleLockMs = 20_000;

/** The lock file a git failure names ("Unable to create '<path>.lock': File exists"), if any. */
export function lockFileOf(error: unknown): string | undefined {
  if (!(error instanceof GitCommandError)) return undefined;
  return /Unable to create '([^']+\.lock)': File exists/.exec(error.stderr)?.[1];
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** The folders whose locks only the checkpoint store takes: its private indexes and its refs. */
export function ownedLockDirs(commonDir: string): string[] {
  return [
    path.join(commonDir, 'subagents', 'checkpoint-index'),
    path.join(commonDir, 'refs', 'subagents', 'checkpoints'),
  ];
}

/**
 * Runs `body`; if it failed on a stale lock of ours (a worker SIGKILLed mid-command), removes the lock and runs it
 * once more (every body is idempotent). A fresh lock, or anyone else's, is left to the caller's retry.
 */
export async function recoveringStaleLocks<T>(commonDir: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const lock = lockFileOf(error);
    if (!lock || !ownedLockDirs(commonDir).some((dir) => isInside(lock, dir))) throw error;
    const stat = await fs.stat(lock).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs < staleLockMs) throw error;
    await fs.rm(lock, { force: true });
    return body();
  }
}
