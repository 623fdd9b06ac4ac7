// Runs command lines with real bash inside one throwaway bubblewrap sandbox and reports, for each, which
// programs bash executed (every PATH entry is a stub that logs its name) and whether it wrote a file.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What bash did with one line. */
export interface Execution {
  /** Names of the programs it ran (stubs on PATH), in order. */
  ran: string[];
  /** Files it left in its working directory. */
  wrote: string[];
}

const bwrap = '/usr/bin/bwrap';

/** The sandbox every run uses: the system read-only, a private /tmp holding only the run's directory, no network, own PIDs. */
function sandboxArguments(root: string): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--tmpfs',
    '/tmp',
    '--bind',
    root,
    root,
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-all',
    '--die-with-parent',
    '--clearenv',
  ];
}

/** Why bwrap cannot run here, or undefined when it can. */
export function bwrapUnavailable(): string | undefined {
  const probe = spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', '/bin/true'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (probe.error)
    return `${bwrap} cannot start (${probe.error.message}); install bubblewrap (apt-get install bubblewrap)`;
  if (probe.status !== 0) return `${bwrap} cannot make a sandbox here (exit ${probe.status}: ${probe.stderr.trim()})`;
  return undefined;
}

/**
 * A driver run inside the sandbox (environment cleared): each case by a bash of its own, in its own directory,
 * PATH only the stubs. One exec a case: process starts are what the run's time goes to.
 */
const driver = `
root=$1; n=$2
for ((i = 0; i < n; i++)); do
  cd "$root/work/$i" || exit 1
  line=$(<"$root/cases/$i")
  PATH="$root/stubs" STUB_LOG="$root/logs/$i" HOME=/nonexistent /bin/bash --norc --noprofile -c "$line" </dev/null >/dev/null 2>&1
done
exit 0
`;

/** Runs every line with real bash, stubs named `programs` standing for every program it may call. */
export function executeInSandbox(lines: readonly string[], programs: readonly string[]): Execution[] {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bash-oracle-'));
  try {
    for (const folder of ['stubs', 'logs', 'cases', 'work']) mkdirSync(path.join(root, folder));
    for (const program of programs) {
      const stub = path.join(root, 'stubs', program);
      writeFileSync(stub, `#!/bin/sh\nprintf '%s\\n' "\${0##*/}" >> "$STUB_LOG"\n`);
      chmodSync(stub, 0o755);
    }
    lines.forEach((line, index) => {
      writeFileSync(path.join(root, 'cases', String(index)), line);
      mkdirSync(path.join(root, 'work', String(index)));
    });
    writeFileSync(path.join(root, 'driver.sh'), driver);
    const run = spawnSync(
      bwrap,
      [...sandboxArguments(root), '/bin/bash', path.join(root, 'driver.sh'), root, String(lines.length)],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (run.error || run.status !== 0)
      throw new Error(`the sandboxed bash run failed (${run.error?.message ?? `exit ${run.status}`}): ${run.stderr}`);
    return lines.map((_, index) => {
      let ran: string[] = [];
      try {
        ran = readFileSync(path.join(root, 'logs', String(index)), 'utf8')
          .split('\n')
          .filter(Boolean);
      } catch {
        // No log: it ran no program.
      }
      return { ran, wrote: readdirSync(path.join(root, 'work', String(index))) };
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
