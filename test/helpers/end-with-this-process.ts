// Node has no parent-death signal (prctl PR_SET_PDEATHSIG): a process the tests start would outlive a vitest
// stopped by Ctrl-C (vitest exits without global teardown) or killed outright. A small watchdog process holds a
// pipe from this process; when the pipe closes (this process is gone, however it ended) it ends the child.
// No vitest import: benchmarks use it too.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

// The watchdog (plain JS, run with `node -e`): argv is [pid, graceMs]. It ignores the terminal's signals so a
// Ctrl-C sent to the whole group cannot end it before its child; it exits as soon as the child is gone.
const watchdogSource = `
const { readFileSync } = require('node:fs');
const [pid, graceMs] = process.argv.slice(1).map(Number);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
const stat = () => { try { return readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ').pop().split(' '); } catch { return undefined; } };
const startTime = stat()?.[19];
const alive = () => {
  try { process.kill(pid, 0); } catch { return false; }
  const fields = stat();
  return fields === undefined || (fields[0] !== 'Z' && fields[19] === startTime);
};
const signal = (name) => { try { process.kill(pid, name); } catch {} };
setInterval(() => { if (!alive()) process.exit(0); }, 1000);
process.stdin.on('close', () => {
  if (!alive()) process.exit(0);
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  setInterval(() => {
    if (!alive()) process.exit(0);
    if (Date.now() > deadline) { signal('SIGKILL'); process.exit(0); }
  }, 100);
});
process.stdin.resume();
`;

/**
 * Ends `child` when this process ends, however it ends: SIGKILL on a normal exit (vitest's Ctrl-C handler calls
 * process.exit), and through a watchdog (SIGTERM, then SIGKILL after `graceMs`) when this process dies abruptly.
 */
export function endWithThisProcess(child: ChildProcess, graceMs = 5000): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const watchdog = spawn(process.execPath, ['-e', watchdogSource, '--', String(child.pid), String(graceMs)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  // Neither the watchdog nor its pipe keeps this process alive.
  watchdog.unref();
  (watchdog.stdin as Socket | null)?.unref();
  const killChild = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killChild);
  child.once('exit', () => {
    process.off('exit', killChild);
    watchdog.kill('SIGKILL');
  });
}
