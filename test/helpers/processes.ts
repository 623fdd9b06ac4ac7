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
