// CPU time of the bench's own process (worker, local model server) and of the dev server, sampled while a
// benchmark runs, so a bench can say how much CPU one phase took on each side. On a machine with few cores a
// phase that keeps both busy takes about (bench CPU + server CPU) / cores of wall time: its CPU is the
// figure that moves with the code, its wall time also with whatever else the machine does that minute.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks a second, the unit of /proc/<pid>/stat's times (100 on Linux unless configured otherwise). */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU of a process so far, in ms, or undefined when it is gone or /proc is not readable. */
export function processCpuMs(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces: the fields after its closing parenthesis start at field 3.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/** CPU used in a span of time, in ms: by this process and by the other one sampled. */
export interface CpuSpan {
  benchMs: number;
  serverMs: number;
}

/**
 * Samples this process's CPU and `serverPid`'s every `intervalMs` until stopped; `between(from, to)` (epoch
 * ms) is what each used from the sample nearest `from` to the sample nearest `to` (the server's figure
 * moves in steps of one clock tick, 10 ms).
 */
export function sampleCpu(
  serverPid: number,
  intervalMs = 20,
): { between(fromMs: number, toMs: number): CpuSpan; stop(): void } {
  const samples: { atMs: number; benchMs: number; serverMs: number }[] = [];
  const sample = () => {
    const own = process.cpuUsage();
    const server = processCpuMs(serverPid);
    if (server === undefined) return;
    samples.push({ atMs: Date.now(), benchMs: (own.user + own.system) / 1000, serverMs: server });
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  const nearest = (atMs: number) =>
    samples.reduce((best, candidate) =>
      Math.abs(candidate.atMs - atMs) < Math.abs(best.atMs - atMs) ? candidate : best,
    );
  return {
    between(fromMs, toMs) {
      if (samples.length === 0) throw new Error(`no CPU sample of the server (pid ${serverPid}): is /proc readable?`);
      const from = nearest(fromMs);
      const to = nearest(toMs);
      return { benchMs: Math.round(to.benchMs - from.benchMs), serverMs: Math.round(to.serverMs - from.serverMs) };
    },
    stop: () => clearInterval(timer),
  };
}
