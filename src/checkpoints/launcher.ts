/**
 * One long-lived `sh` per process that starts the checkpoint store's git commands. Node forks a process in time that
 * grows with its memory (~30 ms from a 470 MB worker on a small VM, against ~2 ms for sh to fork itself), and a
 * checkpoint runs at every turn boundary: the worker forks once, the launcher forks for each script.
 *
 * Each request is one background subshell of the launcher: it enters the request's directory, exports exactly the
 * request's environment, sets the arguments as positional parameters and runs the script text, with stdout, stderr
 * (and stdin) in files of a private folder; on exit it prints `done <id> <status>` to the launcher's stdout. Every
 * value reaches the launcher single-quoted, never as script text.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** What a launched script is given. */
export interface LaunchRequest {
  cwd: string;
  /** The script's whole environment (names sh cannot export are left out). */
  env: Record<string, string>;
  /** Shell script text: ours, never built from input. */
  script: string;
  /** $1, $2…: any text without NUL. */
  args: readonly string[];
  /** Its stdin (default: empty). */
  input?: string;
}

/** How a launched script ended: its exit status (128 + n for signal n) and its output. */
export interface LaunchResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Variables sh can export: others (a name with a dash) are not passed to git, which has no use for them. */
const exportableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `value` as one single-quoted sh word: inside single quotes only the quote itself needs care. */
export function shellWord(value: string): string {
  if (value.includes('\0')) throw new Error('a launched script argument or variable may not contain a NUL byte');
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

interface Files {
  out: string;
  err: string;
  in?: string;
}

interface Pending {
  resolve: (code: number) => void;
  reject: (error: Error) => void;
}

/** The sh text of one request: a background subshell that reports its exit status on fd 3. */
export function requestText(id: number, request: LaunchRequest, files: Files): string {
  const exports = Object.entries(request.env)
    .filter(([name]) => exportableName.test(name))
    .map(([name, value]) => `${name}=${shellWord(value)}`);
  const args = request.args.map(shellWord).join(' ');
  return [
    `( trap 'printf "done %s %s\\n" ${id} "$?" >&3' EXIT`,
    // The launcher's environment is PATH alone: without it in the request's, the script has none either.
    ...('PATH' in request.env ? [] : ['unset PATH']),
    ...(exports.length > 0 ? [`export ${exports.join(' ')}`] : []),
    `cd -- ${shellWord(request.cwd)} || exit 126`,
    `set -- ${args}`,
    request.script,
    `) 3>&1 >${shellWord(files.out)} 2>${shellWord(files.err)} <${files.in ? shellWord(files.in) : '/dev/null'} &`,
    // Frees the finished jobs' entries: the launcher runs thousands of them.
    'jobs >/dev/null',
    '',
  ].join('\n');
}

/** A running launcher: its process, its folder for output files, the requests it has not answered. */
export class Launcher {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  /** Where request output files live while a request runs. */
  readonly folder: string;
  private readonly pending = new Map<number, Pending>();
  /** Requests between their start and the reading of their output files. */
  private running = 0;
  private nextId = 1;
  private buffered = '';
  private exited: Error | undefined;

  constructor() {
    this.folder = mkdtempSync(path.join(os.tmpdir(), 'subagents-launcher-'));
    this.child = spawn('sh', ['-s'], {
      cwd: this.folder,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.received(chunk));
    this.child.stdin.on('error', () => {}); // a launcher that died: reported by 'close'
    this.child.on('error', (error) => this.fail(error));
    // Scripts already started outlive their launcher and still report (they hold its stdout): only new ones go elsewhere.
    this.child.on('exit', (code, signal) => {
      this.exited ??= new Error(`the checkpoint launcher (sh) exited with ${signal ?? code}`);
      this.cleanUp();
    });
    this.child.on('close', (code, signal) =>
      this.fail(new Error(`the checkpoint launcher (sh) exited with ${signal ?? code} before the script ended`)),
    );
    // An idle launcher keeps no process alive: it ends when its stdin closes with the process.
    this.child.unref();
    this.idle();
  }

  /** The launcher's pid (benchmarks read its children's CPU time). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  async run(request: LaunchRequest): Promise<LaunchResult> {
    if (this.exited) throw this.exited;
    this.running += 1;
    try {
      return await this.runOne(request);
    } finally {
      this.running -= 1;
      this.cleanUp();
    }
  }

  private async runOne(request: LaunchRequest): Promise<LaunchResult> {
    const id = this.nextId++;
    const files: Files = {
      out: path.join(this.folder, `${id}.out`),
      err: path.join(this.folder, `${id}.err`),
    };
    if (request.input !== undefined && request.input !== '') {
      files.in = path.join(this.folder, `${id}.in`);
      await fs.writeFile(files.in, request.input);
    }
    const exited = new Promise<number>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.busy();
    this.child.stdin.write(requestText(id, request, files));
    const code = await exited;
    const [stdout, stderr] = await Promise.all([
      fs.readFile(files.out, 'utf8').catch(() => ''),
      fs.readFile(files.err, 'utf8').catch(() => ''),
    ]);
    await Promise.all(Object.values(files).map((file) => fs.rm(file, { force: true })));
    return { code, stdout, stderr };
  }

  /** Ends the launcher: it takes no new request; scripts already started run to their end and still report. */
  close(): void {
    this.exited ??= new Error('the checkpoint launcher was closed');
    this.child.stdin.end();
    this.cleanUp();
  }

  private received(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      const match = /^done (\d+) (\d+)$/.exec(line);
      if (!match) continue;
      const id = Number(match[1]);
      const entry = this.pending.get(id);
      if (!entry) continue;
      this.pending.delete(id);
      entry.resolve(Number(match[2]));
    }
    if (this.pending.size === 0) this.idle();
  }

  private fail(error: Error): void {
    this.exited ??= error;
    for (const entry of this.pending.values()) entry.reject(error);
    this.pending.clear();
    this.cleanUp();
  }

  /** Removes the output folder of a launcher that is gone, once no request reads from it. */
  private cleanUp(): void {
    if (this.exited && this.running === 0) rmSync(this.folder, { recursive: true, force: true });
  }

  // While a request is out, the launcher's answer must keep the event loop alive; otherwise nothing should.
  private busy(): void {
    holdEventLoop([this.child.stdout, this.child.stdin], true);
  }

  private idle(): void {
    holdEventLoop([this.child.stdout, this.child.stdin], false);
  }
}

/** Whether pipes to a child keep this process's event loop alive: only while an answer is awaited. */
export function holdEventLoop(streams: readonly unknown[], hold: boolean): void {
  for (const stream of streams) {
    const handle = stream as { ref(): void; unref(): void };
    if (hold) handle.ref();
    else handle.unref();
  }
}

let shared: Launcher | undefined;

/** This process's launcher, started on first use and again if it died. */
export function launcher(): Launcher {
  if (!shared?.alive) shared = new Launcher();
  return shared;
}

/** Runs a script through this process's launcher. */
export function launch(request: LaunchRequest): Promise<LaunchResult> {
  return launcher().run(request);
}
