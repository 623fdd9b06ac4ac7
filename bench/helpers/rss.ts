// Resident memory of other processes (a worker, the dev server), sampled from /proc while a benchmark runs.
import { readFileSync } from 'node:fs';

/** VmRSS of a process in MiB, or undefined when it is gone or /proc is not readable. */
export function rssMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; `peakMb` is the largest sample so far. */
export function sampleRss(pid: number, intervalMs = 200): { peakMb(): number; lastMb(): number; stop(): void } {
  let peak = 0;
  let last = 0;
  const sample = () => {
    const value = rssMb(pid);
    if (value === undefined) return;
    last = value;
    peak = Math.max(peak, value);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    peakMb: () => peak,
    lastMb: () => last,
    stop: () => {
      sample();
      clearInterval(timer);
    },
  };
}
