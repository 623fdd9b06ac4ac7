// `durable-subagents/testing`: a Temporal server, the local model server and a worker in one call (docs/api.md).
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { CustomTool } from '../shared/tools/define-tool';
import { SubagentsClient } from '../client/client';
import { startDevServer, type DevServer } from '../dev/dev-server';
import { startModelServer, type Behaviour, type ModelServer } from '../model-server/server';
import { subagentsPlugin } from '../worker/plugin';
import type { ToolTaskQueues } from '../shared/tools/custom-tools';

export { startModelServer, type Behaviour, type ModelServer, type Scenario, type Turn } from '../model-server/server';
export { startDevServer, type DevServer } from '../dev/dev-server';

/** Options of {@link startTestEnvironment}. */
export interface TestEnvironmentOptions {
  /** A running Temporal server (host:port); omitted: a dev server is started (the Temporal CLI from TEMPORAL_CLI or PATH). */
  temporalAddress?: string;
  /** What the model server answers (default `{ kind: 'echo' }`); change it later with `modelServer.setBehaviour`. */
  behaviour?: Behaviour;
  /** Custom tools of the worker. */
  tools?: readonly CustomTool[];
  toolTaskQueues?: ToolTaskQueues;
  /** Default: a unique `test-…` queue. */
  taskQueue?: string;
  /** More worker options (a prebuilt `workflowBundle` makes repeated starts fast). */
  workerOptions?: Partial<WorkerOptions>;
}

/** What {@link startTestEnvironment} started; `close()` stops all of it. */
export interface TestEnvironment {
  address: string;
  taskQueue: string;
  client: SubagentsClient;
  temporalClient: Client;
  modelServer: ModelServer;
  worker: Worker;
  close(): Promise<void>;
}

/** Starts a server (unless given), the model server and a running worker with the subagents plugin. */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  let devServer: DevServer | undefined;
  const address = options.temporalAddress ?? (devServer = await startDevServer({ port: 0, headless: true })).address;
  const modelServer = await startModelServer({ port: 0, behaviour: options.behaviour ?? { kind: 'echo' } });
  const taskQueue = options.taskQueue ?? `test-${randomUUID().slice(0, 8)}`;
  const plugin = subagentsPlugin({
    anthropic: new Anthropic({ apiKey: 'test-key', baseURL: modelServer.url, maxRetries: 0 }),
    ...(options.tools ? { tools: options.tools } : {}),
    toolTaskQueues: options.toolTaskQueues ?? {},
    payloadCodecs: [],
    web: {},
  });
  const connection = await Connection.connect({ address });
  const temporalClient = new Client({ connection, plugins: [plugin] });
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    plugins: [plugin],
    ...options.workerOptions,
  });
  const running = worker.run();
  return {
    address,
    taskQueue,
    client: new SubagentsClient(temporalClient, taskQueue),
    temporalClient,
    modelServer,
    worker,
    close: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await modelServer.close();
      await devServer?.stop();
    },
  };
}
