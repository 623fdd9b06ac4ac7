// One worker process per slot (test/helpers/worker-process.ts), SIGKILLed on purpose and replaced;
// replaced too when it dies on its own (e.g. while the dev server is down), which is logged. The
// replacement is started ahead, warm: its modules loaded; it connects and polls once the slot's worker is gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const workerScript = path.join(import.meta.dirname, '..', 'helpers', 'worker-process.ts');

export interface WorkerSlotOptions {
  name: string;
  taskQueue: string;
  temporalAddress: string;
  modelBaseUrl: string;
  bundlePath: string;
  logFile: string;
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

/** A worker process started by the slot: its modules loaded first; it connects, creates its worker and polls once told to run. */
interface Spawned {
  child: ChildProcess;
  generation: number;
  /** Resolves on `worker-loaded`; rejects when the process exits before. */
  loaded: Promise<void>;
  /** Resolves on `worker-ready` (polling); rejects when the process exits before. */
  ready: Promise<void>;
}

export class WorkerSlot {
  private child: ChildProcess | undefined;
  /** The warm replacement: a process started ahead, its modules loaded, not connected (docs/chaos.md, "What it starts"). */
  private standby: Spawned | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  /** Processes started so far (the first one and the warm replacements included). */
  generation = 0;
  /** Exits nobody asked for. */
  readonly unexpectedExits: string[] = [];
  /** When those happened (ms). */
  readonly unexpectedExitTimes: number[] = [];
  /** Spawn → modules loaded (ms), per process: what a warm replacement does ahead of the kill. */
  readonly loadMs: number[] = [];
  /** Told to run → polling (ms), per process: connecting and creating the worker, after the kill. */
  readonly activateMs: number[] = [];

  constructor(readonly options: WorkerSlotOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Makes a worker poll the slot's task queue: the warm replacement when there is one, otherwise a new
   * process; then starts the next replacement. Retries (e.g. while the dev server restarts) for up to 2 minutes.
   */
  start(): Promise<void> {
    this.starting ??= this.startWithRetries().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async startWithRetries(): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (let attempt = 1; ; attempt++) {
      try {
        const spawned = this.standby ?? this.spawnProcess();
        this.standby = undefined;
        await this.activate(spawned);
        this.prepareStandby();
        return;
      } catch (error) {
        if (this.closed) return;
        if (Date.now() > deadline)
          throw new Error(`${this.options.name}: no worker after ${attempt} attempts: ${String(error)}`);
        this.options.log(`${this.options.name}: worker start failed (${String(error)}), retrying`);
        await sleep(1000);
      }
    }
  }

  /** Tells a loaded process to connect and poll, and waits until it does; from then on it is the slot's worker. */
  private async activate(spawned: Spawned): Promise<void> {
    const { options } = this;
    const { child, generation } = spawned;
    await spawned.loaded;
    appendFileSync(
      options.logFile,
      `\n=== worker ${options.name} #${generation} told to run at ${new Date().toISOString()}\n`,
    );
    const began = Date.now();
    child.stdin!.write('run\n');
    await spawned.ready;
    this.activateMs.push(Date.now() - began);
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.closed || signal === 'SIGKILL') return;
      const what = `${options.name}: worker #${generation} (pid ${child.pid}) exited on its own (code ${code}, signal ${signal}); see ${options.logFile}`;
      this.unexpectedExits.push(what);
      this.unexpectedExitTimes.push(Date.now());
      options.log(`${what}; starting another`);
      this.start().catch((error: unknown) => options.log(`${options.name}: ${String(error)}`));
    });
  }

  /** Starts the next warm replacement, unless there is one or the slot is closed. */
  private prepareStandby(): void {
    if (!this.closed && !this.standby) this.standby = this.spawnProcess();
  }

  private spawnProcess(): Spawned {
    const { options } = this;
    this.generation += 1;
    const generation = this.generation;
    appendFileSync(
      options.logFile,
      `\n=== worker ${options.name} #${generation} started at ${new Date().toISOString()}\n`,
    );
    const began = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', workerScript], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: options.temporalAddress,
        SUBAGENTS_TASK_QUEUE: options.taskQueue,
        ANTHROPIC_BASE_URL: options.modelBaseUrl,
        WORKFLOW_BUNDLE_PATH: options.bundlePath,
        WORKER_START_ON_STDIN: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const record = (chunk: Buffer) => appendFileSync(options.logFile, chunk);
    child.stderr!.on('data', record);
    // A write to a process that has just died must not throw: its exit rejects `ready` instead.
    child.stdin!.on('error', () => undefined);
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code, signal) =>
        reject(new Error(`worker exited before it was ready (code ${code}, signal ${signal})`)),
      );
    });
    exited.catch(() => undefined);
    let output = '';
    const seen = (line: string) =>
      Promise.race([
        new Promise<void>((resolve) => {
          const check = () => {
            if (!output.includes(line)) return;
            child.stdout!.off('data', check);
            resolve();
          };
          child.stdout!.on('data', check);
          check();
        }),
        exited,
      ]);
    child.stdout!.on('data', (chunk: Buffer) => {
      record(chunk);
      output = (output + chunk.toString()).slice(-200);
    });
    const spawned: Spawned = { child, generation, loaded: seen('worker-loaded'), ready: seen('worker-ready') };
    spawned.loaded.then(
      () => this.loadMs.push(Date.now() - began),
      (error: unknown) => {
        if (this.standby !== spawned) return;
        this.standby = undefined;
        options.log(
          `${options.name}: the warm replacement #${generation} died before it was needed (${String(error)}); starting another`,
        );
        setTimeout(() => this.prepareStandby(), 1000).unref();
      },
    );
    spawned.ready.catch(() => undefined);
    return spawned;
  }

  /** SIGKILL: no graceful shutdown, running activities and workflow tasks are lost with the process. */
  /** When a kill last saw the worker process gone (ms since epoch): no task starts on it after that. */
  lastExitMs?: number;

  async kill(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await killProcess(child);
    this.lastExitMs = Date.now();
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.kill();
    const standby = this.standby;
    this.standby = undefined;
    if (standby) await killProcess(standby.child);
  }
}

async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
