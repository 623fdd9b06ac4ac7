import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  type Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import proto from '@temporalio/proto';
import { SubagentsClient } from '../../src/client/client';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { startModelServer, type Behaviour, type ModelServer } from '../../src/model-server/server';
import { createAgentWorker, workflowBundlerOptions, workflowsPath } from '../../src/worker/worker';

/** A dev server, a local model server and one worker, all on this machine, for one benchmark run. */
export interface BenchEnv {
  server: DevServer;
  modelServer: ModelServer;
  client: SubagentsClient;
  temporalClient: Client;
  workspace: string;
  worker: Worker;
  close(): Promise<void>;
}

/** Optional knobs of a bench environment; the defaults are what bench:history uses. */
export interface BenchEnvOptions {
  dynamicConfig?: Record<string, unknown>;
  /** The worker's HTTP client for model calls (e.g. one that times responses); default the global fetch. */
  fetch?: ClientOptions['fetch'];
  /** Options for the runtime's worker (e.g. `debugMode`: its workflows on the bench's main thread). */
  workerOptions?: Partial<WorkerOptions>;
}

export async function createBenchEnv(behaviour: Behaviour, options: BenchEnvOptions = {}): Promise<BenchEnv> {
  // Core's own warnings go through the logger (stderr), not to stdout, whose last line is the bench's JSON.
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
  });
  const server = await startDevServer({ port: 0, headless: true, dynamicConfig: options.dynamicConfig });
  const modelServer = await startModelServer({ port: 0, behaviour });
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-')));
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const temporalClient = new Client({ connection, namespace: 'default' });
  const taskQueue = 'bench';
  const worker = await createAgentWorker({
    connection: nativeConnection,
    client: temporalClient,
    namespace: 'default',
    taskQueue,
    anthropic: new Anthropic({
      apiKey: 'bench',
      baseURL: modelServer.url,
      maxRetries: 0,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
    workflowBundle: await bundleWorkflowCode({
      workflowsPath,
      ...workflowBundlerOptions,
      logger: new DefaultLogger('WARN'),
    }),
    ...(options.workerOptions ? { workerOptions: options.workerOptions } : {}),
  });
  const running = worker.run();
  return {
    server,
    modelServer,
    client: new SubagentsClient(temporalClient, taskQueue),
    temporalClient,
    workspace,
    worker,
    close: async () => {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await modelServer.close();
      await server.stop();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** Encoded size in bytes of one history event, as the server stores it. */
export function eventBytes(event: proto.temporal.api.history.v1.IHistoryEvent): number {
  return proto.temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
}

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
