import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** True while a process with this pid runs: not when it is gone, nor when it is a zombie not yet reaped by its parent. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Host pids of the running processes whose command line matches `pattern` (pgrep -f). A Bash command
 * runs in its own PID namespace, so the `$$` it prints is not a host pid: tests find it by a unique
 * argument, such as a sleep of 60.4711 seconds.
 */
export function processesMatching(pattern: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
