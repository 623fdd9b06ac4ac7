import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** True while a process with this id exists (and is not a zombie we could reap). */
export function pidAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return !stat.stdout.trim().startsWith('Z');
}

/** Starts a long-running process in its own process group, detached from ours, its output appended to a log file. */
export function spawnDetached(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; logFile: string; cwd?: string },
): number {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const fd = openSync(options.logFile, 'a');
  try {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    if (!child.pid) throw new Error(`could not start ${command} (see ${options.logFile})`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** SIGTERM to the process group we started, SIGKILL after the grace period. Resolves once it is gone. */
export async function stopProcessGroup(pid: number | undefined, graceMs = 15_000): Promise<void> {
  if (!pidAlive(pid)) return;
  signalGroup(pid!, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pidAlive(pid) && Date.now() < deadline) await sleep(100);
  if (pidAlive(pid)) signalGroup(pid!, 'SIGKILL');
  while (pidAlive(pid)) await sleep(50);
}

/** SIGKILL at once (a crash, as the test suite wants it). */
export async function killProcessGroup(pid: number | undefined): Promise<void> {
  if (!pidAlive(pid)) return;
  signalGroup(pid!, 'SIGKILL');
  while (pidAlive(pid)) await sleep(50);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Runs a command to completion; throws with its output when it fails. */
export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; what: string; allowFailure?: boolean },
): { status: number; output: string } {
  const result = spawnSync(command, args, {
    env: options.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  const status = result.status ?? 1;
  if (status !== 0 && !options.allowFailure) {
    throw new Error(
      `${options.what} failed (exit ${status}${result.error ? `, ${result.error.message}` : ''}):\n${output.split('\n').slice(-30).join('\n')}`,
    );
  }
  return { status, output };
}
