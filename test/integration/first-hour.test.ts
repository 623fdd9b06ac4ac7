// @slow
/**
 * A newcomer's first hour, as README writes it: a fresh clone of this repository's committed HEAD, the default
 * ports (Temporal 7233, its UI 8233, the model server's 8788) held by something else, README's demo command run
 * as a real process — `npm run demo -- --exit`, then `npm run demo -- --tour` — and every line of "Using it" run
 * through a shell with `npx`, with the ids and the `export TEMPORAL_ADDRESS=…` line the tour prints. Ctrl-C
 * (SIGINT to the demo's process group, as a terminal sends it) must leave no process and no port behind.
 * walkthrough.test.ts checks what each line does in detail; this test checks that the lines work verbatim.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tourApprovedFile, tourNames, tourTasks } from '../../src/model-server/demo-tour';
import { defaultModelServerPort, defaultTemporalAddress, defaultUiPort } from '../../src/shared/protocol/config';
import { waitFor } from '../helpers/child-worker';
import { readmeBlock, withTourIds } from '../helpers/readme';

const repoRoot = path.join(import.meta.dirname, '..', '..');
const defaultPorts = [Number(defaultTemporalAddress.split(':')[1]), defaultUiPort, defaultModelServerPort];
let work: string;
let clone: string;
const holders: Server[] = [];
const demos: ChildProcess[] = [];

/** The environment of a newcomer's terminal: none of the test run's Temporal, model or vitest settings. */
function terminalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: path.join(work, 'tmp') };
  for (const name of Object.keys(env)) {
    // SUBAGENTS_SANDBOX stays: the test run turns the sandbox off only on a machine without bubblewrap.
    if (/^(TEMPORAL_|ANTHROPIC_|VITEST|SUBAGENTS_)/.test(name) && name !== 'SUBAGENTS_SANDBOX') delete env[name];
  }
  if (env.NODE_ENV === 'test') delete env.NODE_ENV;
  return env;
}

/** Listens on 127.0.0.1:port and accepts (then drops) connections: a port taken by something that is not Temporal. */
function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', (error) =>
      reject(
        new Error(
          `this test holds 127.0.0.1:${port} itself, but something on this machine already does: ${String(error)}`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Whether nothing listens on 127.0.0.1:port. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Pids of the live processes in process group `groupId`, or whose command line or cwd is inside the clone. */
function leftBehind(groupId: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ').pop()!.split(' ');
      if (stat[0] === 'Z') continue;
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      let cwd = '';
      try {
        cwd = realpathSync(`/proc/${entry}/cwd`);
      } catch {
        // Another user's process: its command line is enough.
      }
      if (Number(stat[2]) === groupId || commandLine.includes(clone) || cwd.startsWith(clone))
        found.push(`${entry} ${commandLine}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** A terminal: `script` through bash in the clone, in its own process group (so Ctrl-C reaches all it starts). */
function terminal(script: string) {
  const child = spawn('bash', ['-c', script], { cwd: clone, env: terminalEnv(), detached: true });
  demos.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, exited, output: () => output };
}

/** Runs `script` through bash in the clone to its end; its exit code and output. */
async function run(script: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
      cwd: clone,
      env: terminalEnv(),
      encoding: 'utf8',
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/** The ports the demo says it took instead of the held defaults, and those it then runs on. */
function portsSaid(output: string) {
  const port =
    /127\.0\.0\.1:7233 is taken by something that is not a Temporal dev server: using (\d+) instead \(--port N to choose\)/.exec(
      output,
    )?.[1];
  const uiPort = /127\.0\.0\.1:8233 \(the UI\) is taken: using (\d+) instead \(--ui-port N to choose\)/.exec(
    output,
  )?.[1];
  const started = /started 127\.0\.0\.1:(\d+), UI http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
  const modelPort = /Model: a scripted .* at http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
  expect([port, uiPort, modelPort], output).not.toContain(undefined);
  expect(started?.slice(1), output).toEqual([port, uiPort]);
  for (const taken of [port, uiPort, modelPort]) expect(defaultPorts).not.toContain(Number(taken));
  return { port: Number(port), uiPort: Number(uiPort), modelPort: Number(modelPort) };
}

/** No process of the terminal's group or of the clone is left (a few seconds' grace to exit), and none listens on `ports`. */
async function expectNothingLeft(groupId: number, ports: number[]): Promise<void> {
  await waitFor(() => leftBehind(groupId).length === 0, 10_000, 'the processes to end').catch(() =>
    expect(leftBehind(groupId)).toEqual([]),
  );
  for (const port of ports) expect(await portFree(port), `port ${port} free`).toBe(true);
}

/** Ctrl-C in the demo's terminal; then nothing it started may be left, nor listen on its ports. */
async function interruptAndCheck(demo: ReturnType<typeof terminal>, ports: number[]): Promise<void> {
  const before = demo.output().length;
  process.kill(-demo.child.pid!, 'SIGINT');
  const code = await Promise.race([
    demo.exited,
    new Promise<'bound'>((resolve) => setTimeout(() => resolve('bound'), 60_000)),
  ]);
  // As in a terminal: npm (in the group too) ends by the signal itself once the demo under it has stopped.
  expect([0, 130, 'SIGINT'], demo.output()).toContain(code);
  expect(demo.output().slice(before), 'no error or stack on Ctrl-C').not.toMatch(/^\s*(\w*Error\b|at )/m);
  await expectNothingLeft(demo.child.pid!, ports);
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-first-hour-')));
  mkdirSync(path.join(work, 'tmp'));
  clone = path.join(work, 'clone');
  execFileSync('git', ['clone', '--quiet', repoRoot, clone]);
  // README's `npm install` would fetch from the registry; the clone links this checkout's node_modules instead (the
  // same lockfile, so the same packages), and its .temporal/bin, which README says a first run builds with Go and
  // later runs reuse. Everything else — dist/, .temporal/dev.db, the tour's workspace — the clone makes for itself.
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(clone, 'node_modules'));
  mkdirSync(path.join(clone, '.temporal'));
  symlinkSync(path.join(repoRoot, '.temporal', 'bin'), path.join(clone, '.temporal', 'bin'));
  for (const port of defaultPorts) holders.push(await holdPort(port));
}, 60_000);

afterAll(async () => {
  for (const demo of demos) {
    try {
      process.kill(-demo.pid!, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  await Promise.all(holders.map((holder) => new Promise((resolve) => holder.close(resolve))));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("README's first hour, on a fresh clone with the default ports taken", () => {
  it("has CI run README's test command, and the tour start with README's demo command", () => {
    const [demoLine, testLine] = readmeBlock(repoRoot, '## Two commands').map((line) =>
      line.replace(/#.*$/, '').trim(),
    );
    expect(demoLine).toBe('npm install && npm run demo -- --exit');
    expect(testLine).toBe('npm test');
    const ciLines = readFileSync(path.join(repoRoot, '.ci', 'run'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    expect(ciLines).toContain(testLine);
    expect(readmeBlock(repoRoot, '## Using it')[0]!.replace(/#.*$/, '').trim()).toBe('npm run demo -- --tour');
    // The tour's lines need its address in a second terminal when it moved off 7233: README says it prints that line.
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(
      readme.slice(readme.indexOf('\n## Using it\n'), readme.indexOf('```sh', readme.indexOf('\n## Using it\n'))),
    ).toContain('`export TEMPORAL_ADDRESS=…` line');
  });

  it('runs the demo to its end on free ports it names, and leaves nothing behind', { timeout: 420_000 }, async () => {
    const demo = terminal('npm run demo -- --exit');
    await waitFor(
      () => demo.output().includes('Inspect the run:') || demo.child.exitCode !== null,
      360_000,
      'the demo to finish its agent',
    );
    // Then it stops what it started and exits: a dev server left running would keep it from exiting.
    const code = await Promise.race([
      demo.exited,
      new Promise<'bound'>((resolve) => setTimeout(() => resolve('bound'), 60_000)),
    ]);
    expect(code, demo.output()).toBe(0);
    const ports = portsSaid(demo.output());
    expect(demo.output()).toMatch(/Cache: \d+ tokens read from cache/);
    await expectNothingLeft(demo.child.pid!, Object.values(ports));
  });

  it(
    "runs README's Using it lines as written against the tour, then stops on Ctrl-C",
    { timeout: 600_000 },
    async () => {
      const usingIt = readmeBlock(repoRoot, '## Using it');
      const demo = terminal(usingIt[0]!);
      let watch: ReturnType<typeof terminal> | undefined;
      try {
        await waitFor(
          () => demo.output().includes('keep running until Ctrl-C') || demo.child.exitCode !== null,
          300_000,
          'the tour to print its lines',
        );
        const output = demo.output();
        expect(demo.child.exitCode, output).toBeNull();
        const ports = portsSaid(output);
        const tour = /• Tour: lead (\S+) in (\S+); worker (\S+) works/.exec(output);
        const printed = /In another terminal, try:\n\n([\s\S]*?)\n\n/.exec(output)?.[1]?.split('\n') ?? [];
        const requestId = printed.map((line) => /^npx subagents approve \S+ (\S+)/.exec(line)?.[1]).find(Boolean);
        expect([tour, requestId], output).not.toContain(undefined);
        const ids = { rootId: tour![1]!, workerId: tour![3]!, requestId: requestId! };
        const workspace = tour![2]!;
        // The demo moved off 7233, so a second terminal needs its address: the first line it prints says so.
        const exportLine = `export TEMPORAL_ADDRESS=127.0.0.1:${ports.port} TEMPORAL_NAMESPACE=default`;
        expect(printed).toEqual([exportLine, ...usingIt.slice(1).map((line) => withTourIds(line, ids))]);

        const ran: string[] = [];
        for (const line of usingIt.slice(1)) {
          const filled = withTourIds(line, ids);
          const command = filled.split(/\s+/)[2]!;
          ran.push(command);
          if (command === 'watch') {
            watch = terminal(`${exportLine}\n${filled}`);
            await waitFor(
              () => watch!.output().includes(tourNames.worker) || watch!.child.exitCode !== null,
              120_000,
              'watch to draw the worker',
            );
            expect(watch.child.exitCode, watch.output()).toBeNull();
            continue;
          }
          const result = await run(`${exportLine}\n${filled}`);
          expect(result.code, `${filled}\n${result.output}`).toBe(0);
          if (command === 'ls') expect(result.output).toContain(ids.workerId);
          if (command === 'approvals') expect(result.output).toContain(ids.requestId);
          if (command === 'approve')
            await waitFor(
              () => existsSync(path.join(workspace, tourApprovedFile)),
              120_000,
              'the approved Bash call to write its file',
            );
          if (command === 'board') for (const subject of tourTasks) expect(result.output).toContain(subject);
          if (command === 'transcript') expect(result.output).toContain('Claiming task #1.');
        }
        expect(ran).toEqual(['watch', 'ls', 'steer', 'approvals', 'approve', 'board', 'transcript', 'stop']);
        expect(workspace.startsWith(path.join(work, 'tmp'))).toBe(true);
        // Once the worker is stopped the lead finishes, and watch ends by itself with exit 0.
        const watchCode = await Promise.race([
          watch!.exited,
          new Promise<'bound'>((resolve) => setTimeout(() => resolve('bound'), 120_000)),
        ]);
        expect(watchCode, watch!.output()).toBe(0);
        expect(watch!.output()).toContain(tourNames.root);

        await interruptAndCheck(demo, Object.values(ports));
      } finally {
        if (watch?.child.exitCode === null) process.kill(-watch.child.pid!, 'SIGINT');
      }
    },
  );
});
