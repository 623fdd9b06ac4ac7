// One worker process per slot (test/helpers/worker-process.ts), SIGKILLed on purpose and restarted;
// restarted too when it dies on its own (e.g. while the dev server is down), which is logged.
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

export class WorkerSlot {
  private child: ChildProcess | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  /** Processes started so far (the first one included). */
  generation = 0;
  /** Exits nobody asked for. */
  readonly unexpectedExits: string[] = [];
  /** When those happened (ms). */
  readonly unexpectedExitTimes: number[] = [];

  constructor(readonly options: WorkerSlotOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts a worker and waits for `worker-ready`; retries (e.g. while the dev server restarts) for up to 2 minutes. */
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
        await this.spawnOnce();
        return;
      } catch (error) {
        if (this.closed) return;
        if (Date.now() > deadline) throw new Error(`${this.options.name}: no worker after ${attempt} attempts: ${String(error)}`);
        this.options.log(`${this.options.name}: worker start failed (${String(error)}), retrying`);
        await sleep(1000);
      }
    }
  }

  private spawnOnce(): Promise<void> {
    const { options } = this;
    this.generation += 1;
    const generation = this.generation;
    appendFileSync(options.logFile, `\n=== worker ${options.name} #${generation} at ${new Date().toISOString()}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', workerScript], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: options.temporalAddress,
        SUBAGENTS_TASK_QUEUE: options.taskQueue,
        ANTHROPIC_BASE_URL: options.modelBaseUrl,
        WORKFLOW_BUNDLE_PATH: options.bundlePath,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const record = (chunk: Buffer) => appendFileSync(options.logFile, chunk);
    child.stderr!.on('data', record);
    return new Promise<void>((resolve, reject) => {
      let output = '';
      let ready = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        record(chunk);
        if (ready) return;
        output += chunk.toString();
        if (output.includes('worker-ready')) {
          ready = true;
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        if (!ready) {
          reject(new Error(`worker exited before it was ready (code ${code}, signal ${signal})`));
          return;
        }
        if (this.child !== child || this.closed || signal === 'SIGKILL') return;
        const what = `${options.name}: worker #${generation} (pid ${child.pid}) exited on its own (code ${code}, signal ${signal}); see ${options.logFile}`;
        this.unexpectedExits.push(what);
        this.unexpectedExitTimes.push(Date.now());
        options.log(`${what}; starting another`);
        this.start().catch((error: unknown) => options.log(`${options.name}: ${String(error)}`));
      });
    });
  }

  /** SIGKILL: no graceful shutdown, running activities and workflow tasks are lost with the process. */
  /** When a kill last saw the worker process gone (ms since epoch): no task starts on it after that. */
  lastExitMs?: number;

  async kill(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.lastExitMs = Date.now();
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.kill();
  }
}
