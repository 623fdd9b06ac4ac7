// Sizing figures of the running cluster for docs/operations.md: resident memory of the workers and
// the server (from /proc), and the size of PostgreSQL's data directory.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { postgresHome } from '../../src/cluster/postgres';
import type { ClusterEnv } from './env';

/** Resident memory of a process and its descendants, in MB (0 when it is gone). */
function residentMb(pid: number | undefined): number {
  if (!pid || !existsSync(`/proc/${pid}/status`)) return 0;
  const listing = spawnSync('ps', ['-o', 'pid=,ppid=,rss=', '-A'], { encoding: 'utf8' }).stdout;
  const rows = listing
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number, number]);
  const family = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of rows) {
      if (family.has(parent) && !family.has(child)) {
        family.add(child);
        grew = true;
      }
    }
  }
  const kb = rows.filter(([child]) => family.has(child)).reduce((sum, [, , rss]) => sum + rss, 0);
  return Math.round(kb / 1024);
}

export function sizingFigures(env: ClusterEnv): Record<string, number> {
  const state = env.state();
  const data = postgresHome(env.paths).data;
  const du = spawnSync('du', ['-sk', data], { encoding: 'utf8' }).stdout.split(/\s/)[0];
  return {
    workerRssMb: Math.max(...state.workers.map((worker) => residentMb(worker.pid))),
    serverRssMb: residentMb(state.server?.pid),
    postgresDataMb: Math.round(Number(du ?? 0) / 1024),
    ...(existsSync('/proc/loadavg')
      ? { loadAverage: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) }
      : {}),
  };
}
