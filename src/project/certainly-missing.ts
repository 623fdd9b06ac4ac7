import { statSync } from 'node:fs';

/**
 * Whether a path is certainly not there (no entry, or a file where a directory should be), told without
 * building an error. An agent's start probes paths that are usually absent — `.mcp.json` in each
 * directory up the tree, the `.claude/agents` directories, the plugins file — and a failed async read
 * builds an error with a stack trace for each (~0.1 ms of CPU). `statSync` with `throwIfNoEntry: false`
 * answers a miss in microseconds on a local disk. Anything else (a permission error) is left to the
 * caller's own read, which reports it as before.
 */
export function certainlyMissing(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR';
  }
}
