// @slow
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endWithThisProcess } from '../helpers/end-with-this-process';
import { waitFor } from '../helpers/child-worker';
import { processAlive, processesMatching } from '../helpers/processes';

const root = path.resolve(import.meta.dirname, '..', '..');
const vitestBin = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const fixtureConfig = path.join(root, 'test', 'fixtures', 'interrupted-run', 'vitest.config.ts');

interface Ready {
  address: string;
  testProcess: number;
  childWorker: number;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Starts a vitest run of the fixture in a process group of its own and waits until its workers poll. */
async function startRun(): Promise<{ vitest: ChildProcess; pids: Record<string, number>; output: () => string }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'interrupted-run-'));
  const readyFile = path.join(directory, 'ready.json');
  // The inner run is a run of its own, not a part of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const vitest = spawn(process.execPath, [vitestBin, 'run', '--config', fixtureConfig], {
    cwd: root,
    env: { ...env, INTERRUPTED_RUN_READY_FILE: readyFile },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  vitest.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  vitest.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const pids: Record<string, number> = { vitest: vitest.pid! };
  cleanups.push(() => {
    // Whatever the outcome, this test leaves nothing running.
    for (const pid of Object.values(pids)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  });
  await waitFor(
    () => existsSync(readyFile) || vitest.exitCode !== null,
    240_000,
    'the fixture run to start its workers',
  );
  if (!existsSync(readyFile)) throw new Error(`the fixture run ended early:\n${output}`);
  const ready = JSON.parse(readFileSync(readyFile, 'utf8')) as Ready;
  const port = ready.address.split(':').at(-1)!;
  const servers = processesMatching(`temporal server start-dev --ip 127\\.0\\.0\\.1 --port ${port} `);
  expect(servers).toHaveLength(1);
  Object.assign(pids, { testProcess: ready.testProcess, childWorker: ready.childWorker, devServer: servers[0]! });
  return { vitest, pids, output: () => output };
}

/** The processes of the run still alive once they had time to end (waiting on the state, bounded). */
async function survivors(pids: Record<string, number>): Promise<string[]> {
  const alive = () => Object.entries(pids).flatMap(([name, pid]) => (processAlive(pid) ? [name] : []));
  await waitFor(() => alive().length === 0, 30_000, 'the run’s processes to end').catch(() => undefined);
  return alive();
}

describe('an interrupted test run leaves no process behind', () => {
  it('Ctrl-C (SIGINT to the whole process group, as a terminal sends it)', async () => {
    const { vitest, pids, output } = await startRun();
    expect(Object.values(pids).every(processAlive)).toBe(true);
    process.kill(-vitest.pid!, 'SIGINT');
    expect(await survivors(pids), output()).toEqual([]);
  });

  it('vitest killed outright (SIGKILL to its main process only: no handler runs)', async () => {
    const { vitest, pids, output } = await startRun();
    process.kill(vitest.pid!, 'SIGKILL');
    expect(await survivors(pids), output()).toEqual([]);
  });
});

describe('endWithThisProcess', () => {
  it('ends a child once its parent is gone, and its watchdog with it', async () => {
    // A parent that starts `sleep` with the watchdog, prints both pids, then waits to be killed.
    const script = `
      import { spawn } from 'node:child_process';
      import { endWithThisProcess } from ${JSON.stringify(path.join(root, 'test', 'helpers', 'end-with-this-process.ts'))};
      const child = spawn('sleep', ['300.4711'], { stdio: 'ignore' });
      endWithThisProcess(child, 1000);
      console.log(child.pid);
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    endWithThisProcess(parent);
    let printed = '';
    parent.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await waitFor(() => /\d+\n/.test(printed), 60_000, 'the child pid');
    const child = Number(printed.trim());
    const watchdogs = () => processesMatching('^/.*node -e .*process\\.stdin\\.resume.* -- ' + child + ' ');
    cleanups.push(() => {
      if (processAlive(child)) process.kill(child, 'SIGKILL');
    });
    expect(processAlive(child)).toBe(true);
    expect(watchdogs()).toHaveLength(1);
    parent.kill('SIGKILL');
    await waitFor(() => !processAlive(child) && watchdogs().length === 0, 30_000, 'the child and its watchdog to end');
  });
});
