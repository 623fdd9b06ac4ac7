import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities';
import { configFromEnv, createAnthropicClient, describeModelEndpoint } from './config';
import { scrubProcessEnvironment, secretNamesIn, withSecretFiles } from './secrets';
import { shellOptionsFromEnv, type ShellOptions } from './activities/tools/shell-options';
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
  /** How Bash runs: extra variables passed through, another user (docs/security.md). */
  shell?: ShellOptions;
  /** The user's home for CLAUDE.md and agent definitions (default os.homedir()). */
  homeDir?: string;
  /** Extra WorkerOptions (e.g. concurrency limits). */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * Heartbeats reach the server at most this often. The SDK's default (0.8 × the heartbeat timeout)
 * would let a running Bash command learn of an interrupt or stop only up to 8 s later; one second
 * makes cancellation prompt for every long activity (docs/architecture.md, Abort domains).
 */
export const heartbeatThrottle = '1 second';

/** Creates a worker that runs agent workflows and their activities on one task queue. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    maxHeartbeatThrottleInterval: heartbeatThrottle,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: createActivities({
      anthropic: options.anthropic,
      temporalClient: options.client,
      toolResultsDir: options.toolResultsDir,
      shell: options.shell,
      ...(options.homeDir ? { homeDir: options.homeDir } : {}),
    }),
    ...options.workerOptions,
  });
}

/** Runs a worker configured from the environment until SIGINT/SIGTERM, then shuts down gracefully. */
export async function runWorkerFromEnv(): Promise<void> {
  const logger = installRuntimeLogging(); // before any native connection: it installs the Runtime
  // Secrets may come as files (ANTHROPIC_API_KEY_FILE, SUBAGENTS_PAYLOAD_KEY_FILE, TEMPORAL_API_KEY_FILE, …).
  const env = withSecretFiles(process.env);
  const config = configFromEnv(env);
  const telemetry = await setupTelemetry(); // undefined unless SUBAGENTS_OTEL=1
  const anthropic = createAnthropicClient(config);
  // Client and worker share the codec: activities read conversations by query through this client.
  const { codecs, settings } = createPayloadCodecs(env);
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
    shell: shellOptionsFromEnv(env),
    workerOptions: { dataConverter, ...(telemetry ? { interceptors: telemetry.workerInterceptors, sinks: telemetry.sinks } : {}) },
  });
  logger.info(
    `worker: task queue "${config.taskQueue}" on ${describeConnection(config.temporal)}, ` +
      `model API ${describeModelEndpoint(config)}, ${describePayloadCodecs(settings)}`,
  );
  // Everything that needed a secret has read it: take them out of reach of the tools (docs/security.md).
  const scrubbed = scrubProcessEnvironment(secretNamesIn(process.env));
  if (scrubbed.removed.length > 0) {
    const where = scrubbed.blockCleared ? '' : ' (process.env only: /proc/self/environ could not be cleared on this system; prefer *_FILE variables)';
    logger.info(`worker: removed ${scrubbed.removed.join(', ')} from its environment${where}`);
  }
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
