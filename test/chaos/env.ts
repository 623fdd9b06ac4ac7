// The chaos suite's own world: a dev server with SQLite persistence in a temp dir (restartable on
// the same port and file), one workflow bundle, the scripted model server, and worker slots.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { createDataConverter } from '../../src/codec/data-converter';
import { freePort, startDevServer, type DevServer } from '../../src/dev/dev-server';
import { startModelServer, type Behaviour, type ModelServer } from '../../src/model-server/server';
import { workflowBundlerOptions, workflowsPath } from '../../src/worker/worker';
import { RequestLog } from './request-log';
import { WorkerSlot } from './worker-slot';

export interface ChaosEnvOptions {
  slots: number;
  behaviour: Behaviour;
  log: (line: string) => void;
  /** Keep the temp dir (SQLite file, logs, repos) after the run. */
  keep: boolean;
}

export class ChaosEnv {
  serverRestarts = 0;
  workerKills = 0;
  /** Every disruption: a slot's worker killed (slot set) or the dev server restarted (every slot). */
  readonly disruptions: { slot?: string; atMs: number }[] = [];
  private serverRestart: Promise<void> | undefined;

  private constructor(
    readonly dir: string,
    private server: DevServer,
    private readonly port: number,
    readonly temporal: Client,
    private readonly connection: Connection,
    readonly modelServer: ModelServer,
    readonly requestLog: RequestLog,
    readonly slots: WorkerSlot[],
    private readonly options: ChaosEnvOptions,
  ) {}

  get dbFile(): string {
    return path.join(this.dir, 'temporal.db');
  }

  static async create(options: ChaosEnvOptions): Promise<ChaosEnv> {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-chaos-')));
    const port = await freePort();
    options.log(`temp dir ${dir}; dev server on 127.0.0.1:${port} with SQLite ${path.join(dir, 'temporal.db')}`);
    const [server, bundle, modelServer] = await Promise.all([
      startDevServer(serverOptions(dir, port)),
      bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions, logger: new DefaultLogger('WARN') }),
      startModelServer({ port: 0, behaviour: options.behaviour }),
    ]);
    const bundlePath = path.join(dir, 'workflow-bundle.js');
    writeFileSync(bundlePath, bundle.code);
    const connection = await Connection.connect({ address: server.address });
    const temporal = new Client({ connection, namespace: 'default', dataConverter: createDataConverter() });
    const slots = Array.from(
      { length: options.slots },
      (_, index) =>
        new WorkerSlot({
          name: `slot-${index + 1}`,
          taskQueue: `chaos-slot-${index + 1}`,
          temporalAddress: server.address,
          modelBaseUrl: modelServer.url,
          bundlePath,
          logFile: path.join(dir, `worker-slot-${index + 1}.log`),
          log: options.log,
        }),
    );
    const env = new ChaosEnv(
      dir,
      server,
      port,
      temporal,
      connection,
      modelServer,
      new RequestLog(modelServer),
      slots,
      options,
    );
    try {
      await Promise.all(slots.map((slot) => slot.start()));
    } catch (error) {
      await env.close();
      throw error;
    }
    return env;
  }

  /** SIGKILLs the slot's worker at once, then starts a new one (once a dev server restart in progress is over). */
  async killWorker(slot: WorkerSlot): Promise<void> {
    this.workerKills += 1;
    this.disruptions.push({ slot: slot.options.name, atMs: Date.now() });
    await slot.kill();
    while (this.serverRestart) await this.serverRestart;
    await slot.start();
  }

  /**
   * A machine restart: SIGKILL the slot's worker, stop the dev server (SIGTERM), start it again on
   * the same port with the same SQLite file, start a new worker. Other slots' workers stay up and
   * must reconnect by themselves (a slot whose worker exits is restarted, and that is reported).
   */
  async restartDevServer(slot: WorkerSlot): Promise<void> {
    this.serverRestarts += 1;
    this.workerKills += 1;
    this.disruptions.push({ atMs: Date.now() });
    await slot.kill();
    while (this.serverRestart) await this.serverRestart;
    this.serverRestart = (async () => {
      await this.server.stop();
      this.server = await startDevServer(serverOptions(this.dir, this.port));
    })().finally(() => {
      this.serverRestart = undefined;
    });
    await this.serverRestart;
    await slot.start();
  }

  /** Every slot's worker SIGKILLed and started again (before the second read of the transcripts). */
  async restartAllWorkers(): Promise<void> {
    while (this.serverRestart) await this.serverRestart;
    await Promise.all(this.slots.map((slot) => slot.restart()));
  }

  async close(): Promise<void> {
    this.requestLog.close();
    await Promise.allSettled(this.slots.map((slot) => slot.close()));
    await this.connection.close().catch(() => undefined);
    await this.modelServer.close().catch(() => undefined);
    await this.server.stop().catch(() => undefined);
    if (!this.options.keep) rmSync(this.dir, { recursive: true, force: true });
  }
}

function serverOptions(dir: string, port: number) {
  return { port, headless: true, dbFilename: path.join(dir, 'temporal.db'), logFile: path.join(dir, 'temporal.log') };
}
