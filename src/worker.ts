import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities';
import { McpConnectionPool } from './activities/mcp/connection-pool';
import { webSettingsFromEnv, type WebToolSettings } from './activities/web';
import { configFromEnv, createAnthropicClient } from './config';
import { createPayloadCodecs, describePayloadCodecs } from './codec/data-converter';
import { connectOptions, describeConnection } from './connection-config';
import { installRuntimeLogging, setupTelemetry } from './observability';

/** Absolute path of the workflow bundle's entry (for bundleWorkflowCode / workflowsPath). */
export const workflowsPath = path.join(import.meta.dirname, 'workflows', 'index.ts');

/** What a worker needs; tests pass real clients pointed at local servers. */
export interface AgentWorkerOptions {
  connection: NativeConnection;
  /** Client used by activities (e.g. to read an agent's conversation by query). */
  client: Client;
  namespace: string;
  taskQueue: string;
  anthropic: Anthropic;
  /** Pre-built bundle (tests build one per run); omitted → bundle from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  toolResultsDir?: string;
  /** WebFetch's private-address allowance and small model (default: from the environment, docs/configuration.md). */
  web?: WebToolSettings;
  /** Extra WorkerOptions (e.g. concurrency limits). */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * Creates a worker that runs agent workflows and their activities on one task queue. Its MCP
 * connections (stdio servers it started) are closed when its `run()` returns.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const mcpConnections = new McpConnectionPool();
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: createActivities({
      anthropic: options.anthropic,
      temporalClient: options.client,
      toolResultsDir: options.toolResultsDir,
      mcpConnections,
      web: options.web ?? webSettingsFromEnv(process.env),
    }),
    ...options.workerOptions,
  });
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      await run();
    } finally {
      await mcpConnections.closeAll();
    }
  };
  return worker;
}

/** Runs a worker configured from the environment until SIGINT/SIGTERM, then shuts down gracefully. */
export async function runWorkerFromEnv(): Promise<void> {
  const logger = installRuntimeLogging(); // before any native connection: it installs the Runtime
  const config = configFromEnv();
  const telemetry = await setupTelemetry(); // undefined unless SUBAGENTS_OTEL=1
  const anthropic = createAnthropicClient(config);
  // Client and worker share the codec: activities read conversations by query through this client.
  const { codecs, settings } = createPayloadCodecs();
  const dataConverter = { payloadCodecs: codecs };
  const connection = await NativeConnection.connect(connectOptions(config.temporal));
  const clientConnection = await Connection.connect(connectOptions(config.temporal));
  const client = new Client({
    connection: clientConnection,
    namespace: config.namespace,
    dataConverter,
    ...(telemetry ? { interceptors: telemetry.clientInterceptors } : {}),
  });
  const worker = await createAgentWorker({
    connection,
    client,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    anthropic,
    workerOptions: { dataConverter, ...(telemetry ? { interceptors: telemetry.workerInterceptors, sinks: telemetry.sinks } : {}) },
  });
  logger.info(
    `worker: task queue "${config.taskQueue}" on ${describeConnection(config.temporal)}, ` +
      `model API ${config.anthropicApiKey ? 'api.anthropic.com' : config.anthropicBaseUrl}, ${describePayloadCodecs(settings)}`,
  );
  // Worker.run() handles SIGINT/SIGTERM itself: it stops polling and lets running activities finish.
  try {
    await worker.run();
  } finally {
    await clientConnection.close();
    await connection.close();
    await telemetry?.shutdown();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runWorkerFromEnv().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
