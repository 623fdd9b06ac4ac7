// Workspace checkpoints on this repository (part of npm run bench:rewind; runnable alone with
// `node bench/run.mjs bench/rewind-checkpoints.ts`): time per checkpoint after a turn that changed one file, after
// one that changed nothing, the first one (cold private index), bytes of new objects per one-file turn, and restores.
// Everything runs in a `git clone --shared` of this repository in a temporary directory.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCheckpointActivities } from '../src/activities/checkpoints/index';
import { baseGitEnv } from '../src/checkpoints/git-command';
import { runScript } from '../src/checkpoints/git-script';
import { gitPipePids } from '../src/checkpoints/git-pipes';
import { launcher } from '../src/checkpoints/launcher';
import type { CheckpointResult, TurnCheckpoint } from '../src/shared/workspace/checkpoints';

/** One line of the table: a measured operation. */
export interface CheckpointBenchRow {
  measure: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
  /** CPU time of the child processes (sh, git) per run, mean: less sensitive to the machine's other load than wall time. */
  gitCpuMsMean: number;
}

/** The figures bench:rewind reports (times in ms, sizes in bytes). */
export interface CheckpointBenchFigures {
  repositoryFiles: number;
  oneFileTurnMsP50: number;
  oneFileTurnMsP95: number;
  unchangedTurnMsP50: number;
  unchangedTurnMsP95: number;
  firstCheckpointMsP50: number;
  firstCheckpointMsP95: number;
  /** The first checkpoint of a second agent on the same checkout, its index copied from the first agent's. */
  seededFirstCheckpointMsP50: number;
  /** Sum of the sizes of the loose objects one one-file turn adds (blob, trees on its path, commit). */
  oneFileTurnObjectBytesP50: number;
  /** The same on disk (each loose object takes whole file-system blocks). */
  oneFileTurnDiskBytesP50: number;
  /** Of which the trees on the file's path and the commit: what a checkpoint adds beyond the file's own content. */
  oneFileTurnTreeAndCommitBytesP50: number;
  restoreOneFileMsP50: number;
  restoreOneFileMsP95: number;
  restoreThirtyFilesMsP50: number;
  /** Mean CPU time of the processes (sh and git) of a checkpoint after a one-file turn. */
  oneFileTurnGitCpuMs: number;
  changesSinceMsP50: number;
  /** One launched script of three git processes in a row doing nothing: what this machine charges this design. */
  processFloorMsP50: number;
  privateIndexBytes: number;
  /** Resident memory of this process (the launcher spares each operation a fork of it). */
  benchRssMb: number;
  loadAverage: number;
}

export interface CheckpointBenchOptions {
  /** The repository cloned (default: this one). */
  source?: string;
  /** One-file and unchanged turns measured (default BENCH_CHECKPOINT_TURNS or 30). */
  turns?: number;
}

/** The file each one-file turn edits: three folders deep, like most edits an agent makes here. */
const editedFile = 'src/activities/tools/bash.ts';

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 10) / 10;
}

function row(measure: string, times: Timing): CheckpointBenchRow {
  return {
    measure,
    runs: times.wall.length,
    medianMs: percentile(times.wall, 0.5),
    p95Ms: percentile(times.wall, 0.95),
    gitCpuMsMean: Math.round(times.cpuMs / Math.max(1, times.wall.length)),
  };
}

/** CPU milliseconds (user + system) of a process from /proc: its own with `own`, its waited-for children's always. */
function procCpuMs(pid: number | 'self', own: boolean): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime, stime, cutime and cstime are fields 14-17 of stat (11-14 counted from after the command name), in ticks of 10 ms.
    const children = Number(fields[13]) + Number(fields[14]);
    return (own ? Number(fields[11]) + Number(fields[12]) + children : children) * 10;
  } catch {
    return 0;
  }
}

/** CPU milliseconds of the git processes: this process's children, the launcher's and the git pipes (from /proc; 0 without). */
function childrenCpuMs(): number {
  const launcherPid = launcher().pid;
  return (
    procCpuMs('self', false) +
    (launcherPid === undefined ? 0 : procCpuMs(launcherPid, true)) +
    gitPipePids().reduce((sum, pid) => sum + procCpuMs(pid, true), 0)
  );
}

/** Wall times of each run, and the git processes' CPU time summed over the runs. */
interface Timing {
  wall: number[];
  cpuMs: number;
}

const timing = (): Timing => ({ wall: [], cpuMs: 0 });

async function timed<T>(into: Timing, run: () => Promise<T>): Promise<T> {
  const cpu = childrenCpuMs();
  const started = performance.now();
  const result = await run();
  into.wall.push(performance.now() - started);
  into.cpuMs += childrenCpuMs() - cpu;
  return result;
}

function recorded(result: CheckpointResult): TurnCheckpoint {
  if (result.kind !== 'recorded') throw new Error(`expected a recorded checkpoint, got ${JSON.stringify(result)}`);
  return result.checkpoint;
}

/** The loose objects of a repository: object id to bytes (apparent and on disk). */
async function looseObjects(gitDir: string): Promise<Map<string, { bytes: number; disk: number }>> {
  const objects = path.join(gitDir, 'objects');
  const found = new Map<string, { bytes: number; disk: number }>();
  for (const folder of await fs.readdir(objects)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const file of await fs.readdir(path.join(objects, folder))) {
      const stat = await fs.stat(path.join(objects, folder, file));
      found.set(folder + file, { bytes: stat.size, disk: stat.blocks * 512 });
    }
  }
  return found;
}

/** Bytes of the objects in `after` and not in `before`: all, on disk, and those that are not blobs (trees, commit). */
function newObjects(
  repo: string,
  before: Map<string, { bytes: number; disk: number }>,
  after: Map<string, { bytes: number; disk: number }>,
): { bytes: number; disk: number; nonBlobBytes: number } {
  const added = [...after.keys()].filter((id) => !before.has(id));
  const types = execFileSync('git', ['cat-file', '--batch-check=%(objecttype)'], {
    cwd: repo,
    input: added.map((id) => `${id}\n`).join(''),
    encoding: 'utf8',
  }).split('\n');
  let bytes = 0;
  let disk = 0;
  let nonBlobBytes = 0;
  added.forEach((id, index) => {
    const size = after.get(id)!;
    bytes += size.bytes;
    disk += size.disk;
    if (types[index] !== 'blob') nonBlobBytes += size.bytes;
  });
  return { bytes, disk, nonBlobBytes };
}

/** Clones the repository, measures, removes the clone. */
export async function benchCheckpoints(
  options: CheckpointBenchOptions = {},
): Promise<{ rows: CheckpointBenchRow[]; figures: CheckpointBenchFigures }> {
  const source = options.source ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const turns = options.turns ?? Number(process.env.BENCH_CHECKPOINT_TURNS ?? 30);
  const scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bench-checkpoints-')));
  const repo = path.join(scratch, 'repo');
  try {
    execFileSync('git', ['clone', '--quiet', '--shared', source, repo]);
    const gitDir = path.join(repo, '.git');
    const repositoryFiles =
      execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' }).split('\0').length - 1;
    const activities = createCheckpointActivities({
      env: { ...process.env, SUBAGENTS_HOME: path.join(scratch, 'home') },
    });
    const indexDir = path.join(gitDir, 'subagents', 'checkpoint-index');

    // The first checkpoint of an agent: no private index yet, so git hashes every file once.
    const first = timing();
    for (let run = 0; run < Math.max(5, Math.round(turns / 3)); run += 1) {
      await fs.rm(indexDir, { recursive: true, force: true });
      await timed(first, () => activities.checkpointWorkspace({ agentId: 'bench-first', cwd: repo, turn: run }));
    }
    await activities.dropCheckpoints({ root: repo, agentId: 'bench-first' });

    let latest = recorded(await activities.checkpointWorkspace({ agentId: 'bench', cwd: repo, turn: 0 }));
    const checkpoints = [latest];
    const oneFile = timing();
    const unchanged = timing();
    const objectBytes: number[] = [];
    const diskBytes: number[] = [];
    const nonBlobBytes: number[] = [];
    const changesSince = timing();
    for (let turn = 1; turn <= turns; turn += 1) {
      await fs.appendFile(path.join(repo, editedFile), `// turn ${turn}\n`);
      const before = await looseObjects(gitDir);
      latest = recorded(
        await timed(oneFile, () =>
          activities.checkpointWorkspace({ agentId: 'bench', cwd: repo, turn, previous: latest }),
        ),
      );
      const added = newObjects(repo, before, await looseObjects(gitDir));
      objectBytes.push(added.bytes);
      diskBytes.push(added.disk);
      nonBlobBytes.push(added.nonBlobBytes);
      checkpoints.push(latest);
      const result = await timed(unchanged, () =>
        activities.checkpointWorkspace({ agentId: 'bench', cwd: repo, turn: turn + 1, previous: latest }),
      );
      if (result.kind !== 'unchanged') throw new Error(`a turn without changes recorded ${JSON.stringify(result)}`);
      await timed(changesSince, () => activities.workspaceChangesSince({ checkpoint: checkpoints[turn - 1]! }));
    }

    // The first checkpoint of another agent on the same checkout (a subagent sharing its parent's cwd).
    const seeded = timing();
    for (let run = 0; run < Math.max(5, Math.round(turns / 3)); run += 1) {
      await timed(seeded, () => activities.checkpointWorkspace({ agentId: `bench-seeded-${run}`, cwd: repo, turn: 0 }));
      await activities.dropCheckpoints({ root: repo, agentId: `bench-seeded-${run}` });
    }

    // Back one turn and forward again, each time refused-or-restored against the workspace's latest checkpoint.
    const restoreOne = timing();
    let current = latest;
    for (let run = 0; run < Math.max(10, Math.round(turns / 2)); run += 1) {
      const target = current === latest ? checkpoints[checkpoints.length - 2]! : latest;
      const result = await timed(restoreOne, () =>
        activities.restoreCheckpoint({ checkpoint: target, latest: current }),
      );
      if (result.kind !== 'restored' || result.changes.length !== 1) throw new Error(JSON.stringify(result));
      current = target;
    }
    // Thirty files back: the turn-0 checkpoint after 30 files were each changed once.
    for (let index = 0; index < 30; index += 1) {
      await fs.appendFile(
        path.join(repo, 'src', 'shared', `bench-${index}.ts`),
        `export const n${index} = ${index};\n`,
      );
    }
    const spread = recorded(
      await activities.checkpointWorkspace({ agentId: 'bench', cwd: repo, turn: turns + 2, previous: current }),
    );
    const restoreThirty = timing();
    const restored = await timed(restoreThirty, () =>
      activities.restoreCheckpoint({ checkpoint: current, latest: spread }),
    );
    if (restored.kind !== 'restored' || restored.changes.length !== 30) throw new Error(JSON.stringify(restored));
    for (let run = 0; run < 4; run += 1) {
      await timed(restoreThirty, () => activities.restoreCheckpoint({ checkpoint: spread, latest: current }));
      await timed(restoreThirty, () => activities.restoreCheckpoint({ checkpoint: current, latest: spread }));
    }

    // The floor of this design on this machine: one script of the launcher running three git processes in a row
    // (stage, tree, compare: the critical path of a checkpoint) doing nothing.
    const floor = timing();
    for (let run = 0; run < turns; run += 1) {
      await timed(floor, () =>
        runScript(
          { cwd: repo, env: baseGitEnv() },
          'floor',
          'git --version; git --version; git --version >/dev/null',
          [],
        ),
      );
    }

    const indexName = (await fs.readdir(path.join(indexDir, 'bench'))).find((name) => /^[0-9a-f]{16}$/.test(name));
    const privateIndexBytes = (await fs.stat(path.join(indexDir, 'bench', indexName!))).size;
    const measured = {
      oneFile: row('checkpoint after a one-file turn', oneFile),
      unchanged: row('checkpoint after a turn with no changes', unchanged),
      first: row('first checkpoint (cold private index)', first),
      seeded: row("first checkpoint, another agent's index copied", seeded),
      changesSince: row('workspaceChangesSince (one file)', changesSince),
      restoreOne: row('restore one file (with latest check)', restoreOne),
      restoreThirty: row('restore 30 files (with latest check)', restoreThirty),
      floor: row('floor: 3 × git --version in one launched sh', floor),
    };
    const figures: CheckpointBenchFigures = {
      repositoryFiles,
      oneFileTurnMsP50: measured.oneFile.medianMs,
      oneFileTurnMsP95: measured.oneFile.p95Ms,
      oneFileTurnGitCpuMs: measured.oneFile.gitCpuMsMean,
      unchangedTurnMsP50: measured.unchanged.medianMs,
      unchangedTurnMsP95: measured.unchanged.p95Ms,
      firstCheckpointMsP50: measured.first.medianMs,
      firstCheckpointMsP95: measured.first.p95Ms,
      seededFirstCheckpointMsP50: measured.seeded.medianMs,
      oneFileTurnObjectBytesP50: percentile(objectBytes, 0.5),
      oneFileTurnDiskBytesP50: percentile(diskBytes, 0.5),
      oneFileTurnTreeAndCommitBytesP50: percentile(nonBlobBytes, 0.5),
      changesSinceMsP50: measured.changesSince.medianMs,
      restoreOneFileMsP50: measured.restoreOne.medianMs,
      restoreOneFileMsP95: measured.restoreOne.p95Ms,
      restoreThirtyFilesMsP50: measured.restoreThirty.medianMs,
      processFloorMsP50: measured.floor.medianMs,
      privateIndexBytes,
      benchRssMb: Math.round(process.memoryUsage().rss / 1e6),
      loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
    };
    const rows = Object.values(measured);
    return { rows, figures };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** The table and, last, one JSON line of the figures. */
export function printCheckpointBench(result: Awaited<ReturnType<typeof benchCheckpoints>>): void {
  const { rows, figures } = result;
  console.log(
    `checkpoint benchmark: a shared clone of this repository (${figures.repositoryFiles} files), ` +
      `load average ${figures.loadAverage}, this process ${figures.benchRssMb} MB resident`,
  );
  const header = ['runs', 'median ms', 'p95 ms', 'git cpu ms'];
  const widths = [6, 11, 9, 12];
  const line = (first: string, cells: (string | number)[]) =>
    first.padEnd(48) + cells.map((cell, index) => String(cell).padStart(widths[index]!)).join('');
  console.log(line('operation', header));
  for (const { measure, runs, medianMs, p95Ms, gitCpuMsMean } of rows) {
    console.log(line(measure, [runs, medianMs, p95Ms, gitCpuMsMean]));
  }
  console.log(
    `new objects per one-file turn: ${figures.oneFileTurnObjectBytesP50} bytes, of which trees and commit ` +
      `${figures.oneFileTurnTreeAndCommitBytesP50} (${figures.oneFileTurnDiskBytesP50} on disk); ` +
      `private index: ${figures.privateIndexBytes} bytes per agent`,
  );
  console.log(JSON.stringify(figures));
}

const invokedAlone = process.argv
  .slice(1)
  .some((argument) => path.resolve(argument) === fileURLToPath(import.meta.url));
if (invokedAlone) printCheckpointBench(await benchCheckpoints());
