import os from 'node:os';
import { pathToFileURL } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { createRequire } from 'node:module';
import { versionKey } from '../client/deployments';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { CustomTool } from '../shared/tools/define-tool';
import { parseToolTaskQueues, type ToolTaskQueues } from '../shared/tools/custom-tools';
import {
  parseWorkflowStacks,
  subagentsPlugin,
  workflowsPath,
  type SubagentsPlugin,
  type WorkflowStacks,
} from './plugin';
import {
  adoptIfNoCurrentVersion,
  defaultBuildId,
  versionRequestFromEnv,
  workerDeploymentOptions,
  type WorkerVersion,
} from './versioning';
import type { Telemetry } from './observability';
import { McpConnectionPool } from '../mcp/connection-pool';
import { installAdvice, sandboxProblem, type SandboxOptions } from '../config/sandbox-options';
import { findRipgrep } from '../activities/tools/ripgrep';
import { webSettingsFromEnv, type WebToolSettings } from '../activities/web';
import { configFromEnv, createAnthropicClient, describeModelEndpoint } from '../config/config';
import { scrubProcessEnvironment, secretNamesIn, withSecretFiles } from '../config/secrets';
import { shellOptionsFromEnv, type ShellOptions } from '../config/shell-options';
import { createPayloadCodecs, describePayloadCodecs } from '../codec/data-converter';
import { connectOptions, describeConnection } from '../config/connection-config';
import { installRuntimeLogging, setupTelemetry } from './observability';
import { guardWorkspaceActivities, resolveWorkspaceRoot } from '../activities/workspace-guard';
import { workspaceActivityNames, workspaceTaskQueue } from '../shared/workspace/workspace-routing';

export { heartbeatThrottle, workflowBundlerOptions, workflowsPath } from './plugin';

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
  /** WebFetch's private-address allowance and small model (default: from the environment, docs/configuration.md). */
  web?: WebToolSettings;
  /** Extra WorkerOptions (e.g. concurrency limits). */
  workerOptions?: Partial<WorkerOptions>;
  /** This worker's place among workers without a shared filesystem (docs/operations.md); omitted: every path is served. */
  workspace?: WorkerWorkspace;
  /** The team's own tools (`defineTool`, docs/tools.md "Custom tools"). */
  tools?: readonly CustomTool[];
  /** Built-in tools whose activities run on another task queue (default: SUBAGENTS_TOOL_TASK_QUEUES). */
  toolTaskQueues?: ToolTaskQueues;
  /** Tracing (setupTelemetry()): passed to the plugin. */
  telemetry?: Telemetry;
  /** Stack depth of workflow code when this worker bundles the workflows (default: SUBAGENTS_WORKFLOW_STACKS, else `short`). */
  workflowStacks?: WorkflowStacks;
  /** Register the runtime's search attributes when the worker starts (default false here; the CLI's worker does). */
  registerSearchAttributes?: boolean;
  /** Run as this version of a worker deployment (docs/operations.md, "Upgrades"); omitted: unversioned. */
  version?: WorkerVersion;
}

/** Who a worker is and which files it holds (SUBAGENTS_WORKER_ID, SUBAGENTS_WORKSPACE_ROOT). */
export interface WorkerWorkspace {
  /** Also poll the worker's own task queue `<taskQueue>@<workerId>` for the workspace activities of agents placed here. */
  workerId?: string;
  /** Absolute directory holding this worker's files: workspace activities refuse paths outside it. */
  root?: string;
}

/** The identity Temporal records for the worker's tasks: its worker id first, so histories show where each call ran. */
export function workerIdentity(workerId: string | undefined): string | undefined {
  return workerId ? `${workerId} ${process.pid}@${os.hostname()}` : undefined;
}

/** The activities of a worker, with the workspace root check when it has a root. */
export function workerActivities(options: AgentWorkerOptions, mcpConnections: McpConnectionPool) {
  const activities = createActivities({
    anthropic: options.anthropic,
    temporalClient: options.client,
    toolResultsDir: options.toolResultsDir,
    shell: options.shell,
    ...(options.homeDir ? { homeDir: options.homeDir } : {}),
    mcpConnections,
    web: options.web ?? webSettingsFromEnv(process.env),
    customTools: options.tools ?? [],
    toolTaskQueues: options.toolTaskQueues ?? parseToolTaskQueues(process.env.SUBAGENTS_TOOL_TASK_QUEUES ?? ''),
  });
  const root = options.workspace?.root;
  if (!root) return activities;
  const name = options.workspace?.workerId ?? `${process.pid}@${os.hostname()}`;
  return guardWorkspaceActivities(activities, resolveWorkspaceRoot(root), name, workspaceActivityNames);
}

/** The plugin of an agent worker: the same one a team adds to its own Worker.create({ plugins }). */
export function agentWorkerPlugin(options: AgentWorkerOptions): SubagentsPlugin {
  const root = options.workspace?.root;
  return subagentsPlugin({
    anthropic: options.anthropic,
    client: options.client,
    // The codec comes with workerOptions.dataConverter (runWorkerFromEnv), as before the plugin.
    payloadCodecs: [],
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.toolTaskQueues ? { toolTaskQueues: options.toolTaskQueues } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...(options.workflowStacks ? { workflowStacks: options.workflowStacks } : {}),
    registerSearchAttributes: options.registerSearchAttributes ?? false,
    toolResultsDir: options.toolResultsDir,
    ...(options.shell ? { shell: options.shell } : {}),
    ...(options.homeDir ? { homeDir: options.homeDir } : {}),
    web: options.web ?? webSettingsFromEnv(process.env),
    ...(root
      ? { workspaceRoot: { root, name: options.workspace?.workerId ?? `${process.pid}@${os.hostname()}` } }
      : {}),
  });
}

/** A worker running agent workflows and activities on one task queue; its MCP servers close when `run()` returns. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
    plugins: [agentWorkerPlugin(options)],
    ...withIdentity(options),
    ...(options.version ? { workerDeploymentOptions: workerDeploymentOptions(options.version) } : {}),
    ...options.workerOptions,
  });
}

/** The workflow bundle a worker would build, built ahead so that its hash can name the version (docs/operations.md). */
export async function bundleAgentWorkflows(options: Pick<AgentWorkerOptions, 'workflowStacks'> = {}): Promise<string> {
  const plugin = subagentsPlugin({ ...(options.workflowStacks ? { workflowStacks: options.workflowStacks } : {}) });
  const { code } = await bundleWorkflowCode({ workflowsPath, plugins: [plugin] });
  return code;
}

const packageVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** A versioned worker's version: the build id given, else derived from the package version and the bundle. */
export function workerVersionFor(
  deploymentName: string,
  buildId: string | undefined,
  bundleCode: string,
): WorkerVersion {
  return { deploymentName, buildId: buildId ?? defaultBuildId(packageVersion, bundleCode) };
}

/** A tool worker: only the named tools' activities on `taskQueue`, no workflows (docs/tools.md). */
export async function createToolWorker(
  options: AgentWorkerOptions & { onlyTools: readonly string[] },
): Promise<Worker> {
  const plugin = agentWorkerPlugin(options);
  const toolPlugin = subagentsPlugin({ ...plugin.settings, onlyTools: options.onlyTools });
  const { dataConverter, interceptors, maxConcurrentActivityTaskExecutions } = options.workerOptions ?? {};
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    plugins: [toolPlugin],
    ...withIdentity(options),
    ...(dataConverter ? { dataConverter } : {}),
    ...(interceptors?.activity ? { interceptors: { activity: interceptors.activity } } : {}),
    ...(maxConcurrentActivityTaskExecutions ? { maxConcurrentActivityTaskExecutions } : {}),
  });
}

function withIdentity(options: AgentWorkerOptions): Partial<WorkerOptions> {
  const identity = workerIdentity(options.workspace?.workerId);
  return identity ? { identity } : {};
}

/** A process's second worker, on `<taskQueue>@<workerId>`: the workspace activities of agents placed here. */
export async function createWorkspaceWorker(
  options: AgentWorkerOptions & { workspace: { workerId: string } },
): Promise<Worker> {
  // Only workspace activities run here; MCP calls stay on the shared queue, so this pool stays empty.
  const all = workerActivities(
    options,
    new McpConnectionPool(options.shell?.sandbox ? { sandbox: options.shell.sandbox } : {}),
  );
  const activities = Object.fromEntries(workspaceActivityNames.map((name) => [name, all[name]]));
  const { dataConverter, interceptors, maxConcurrentActivityTaskExecutions } = options.workerOptions ?? {};
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: workspaceTaskQueue(options.taskQueue, options.workspace.workerId),
    activities,
    ...withIdentity(options),
    ...(dataConverter ? { dataConverter } : {}),
    ...(interceptors?.activity ? { interceptors: { activity: interceptors.activity } } : {}),
    ...(maxConcurrentActivityTaskExecutions ? { maxConcurrentActivityTaskExecutions } : {}),
  });
}

/** Runs the workers of one process together: when one stops (or fails), the other is shut down too. */
export async function runTogether(workers: Worker[]): Promise<void> {
  const runs = workers.map((worker) =>
    worker.run().finally(() => {
      for (const other of workers) if (other !== worker && other.getState() === 'RUNNING') other.shutdown();
    }),
  );
  const outcomes = await Promise.allSettled(runs);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** What `subagents worker --tools … --task-queue …` asks for: a tool worker instead of an agent worker. */
export interface ToolWorkerRequest {
  tools: readonly string[];
  taskQueue: string;
}

/** What `subagents worker --deployment … --build-id …` asks for (over SUBAGENTS_DEPLOYMENT and SUBAGENTS_BUILD_ID). */
export interface VersionRequest {
  deploymentName?: string;
  buildId?: string;
}

/** Runs a worker configured from the environment until SIGINT/SIGTERM, then shuts down gracefully. */
export async function runWorkerFromEnv(toolWorker?: ToolWorkerRequest, versionRequest?: VersionRequest): Promise<void> {
  const logger = installRuntimeLogging(); // before any native connection: it installs the Runtime
  // Secrets may come as files (ANTHROPIC_API_KEY_FILE, SUBAGENTS_PAYLOAD_KEY_FILE, TEMPORAL_API_KEY_FILE, …).
  const env = withSecretFiles(process.env);
  const config = configFromEnv(env);
  // Settings that stop the worker with a message are read before it connects.
  const toolTaskQueues = parseToolTaskQueues(env.SUBAGENTS_TOOL_TASK_QUEUES ?? '');
  const workflowStacks = parseWorkflowStacks(env.SUBAGENTS_WORKFLOW_STACKS);
  const requested = { ...versionRequestFromEnv(env), ...versionRequest };
  if (requested.buildId !== undefined && requested.deploymentName === undefined)
    throw new Error(
      '--build-id names a version of a deployment: give --deployment too (docs/operations.md, "Upgrades").',
    );
  // A versioned agent worker bundles ahead: the bundle's hash names its build (docs/operations.md, "Upgrades").
  const bundle =
    requested.deploymentName !== undefined && !toolWorker ? await bundleAgentWorkflows({ workflowStacks }) : undefined;
  const version =
    bundle !== undefined ? workerVersionFor(requested.deploymentName!, requested.buildId, bundle) : undefined;
  const telemetry = await setupTelemetry(); // undefined unless SUBAGENTS_OTEL=1
  // A tool worker registers no model activity, so it needs (and should get) no model key (docs/tools.md, "Tool task queues").
  const anthropic =
    toolWorker && !config.anthropicApiKey && !config.anthropicBaseUrl
      ? new Anthropic({ apiKey: 'unused-by-tool-workers', maxRetries: 0 })
      : createAnthropicClient(config);
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
  const workerOptions: AgentWorkerOptions = {
    connection,
    client,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    anthropic,
    shell: shellOptionsFromEnv(env),
    workspace: config.workspace,
    toolTaskQueues,
    workflowStacks,
    workerOptions: {
      dataConverter,
      ...(telemetry ? { interceptors: telemetry.workerInterceptors, sinks: telemetry.sinks } : {}),
    },
  };
  const workerId = config.workspace.workerId;
  const workers = toolWorker
    ? [await createToolWorker({ ...workerOptions, taskQueue: toolWorker.taskQueue, onlyTools: toolWorker.tools })]
    : [
        await createAgentWorker({
          ...workerOptions,
          registerSearchAttributes: true,
          ...(version && bundle ? { version, workflowBundle: { code: bundle } } : {}),
        }),
      ];
  if (workerId && !toolWorker)
    workers.push(await createWorkspaceWorker({ ...workerOptions, workspace: { ...config.workspace, workerId } }));
  const queues = toolWorker
    ? `tool worker for ${toolWorker.tools.join(', ')} on task queue "${toolWorker.taskQueue}"`
    : `task queue "${config.taskQueue}"${workerId ? ` and its own "${workspaceTaskQueue(config.taskQueue, workerId)}" (worker id ${workerId})` : ''}${version ? `, version ${versionKey(version)}` : ''}`;
  logger.info(
    `worker: ${queues} ` +
      `on ${describeConnection(config.temporal)}, ${config.workspace.root ? `workspace root ${config.workspace.root}, ` : ''}` +
      `model API ${describeModelEndpoint(config)}, ${describePayloadCodecs(settings)}`,
  );
  await logToolBoundary(workerOptions.shell?.sandbox, logger);
  // Everything that needed a secret has read it: take them out of reach of the tools (docs/security.md).
  const scrubbed = scrubProcessEnvironment(secretNamesIn(process.env));
  if (scrubbed.removed.length > 0) {
    const where = scrubbed.blockCleared
      ? ''
      : ' (process.env only: /proc/self/environ could not be cleared on this system; prefer *_FILE variables)';
    logger.info(`worker: removed ${scrubbed.removed.join(', ')} from its environment${where}`);
  }
  // Worker.run() handles SIGINT/SIGTERM itself: it stops polling and lets running activities finish.
  const running = runTogether(workers);
  if (version)
    void adoptIfNoCurrentVersion(client, version, config.taskQueue).then(
      (said) => logger.info(`worker: ${said}`),
      (error: unknown) =>
        logger.warn(
          `worker: could not read deployment ${version.deploymentName}: ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
  try {
    await running;
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

/** Says loudly when commands run unconfined or cannot run at all (docs/security.md, "The sandbox"), and when Grep has no ripgrep. */
async function logToolBoundary(
  sandbox: SandboxOptions | undefined,
  logger: { info(message: string): void; warn(message: string): void },
): Promise<void> {
  if (!(await findRipgrep()))
    logger.warn(
      'worker: ripgrep (rg) is not on PATH: Grep falls back to JavaScript regular expressions in a worker thread with a time limit; install it (`apt-get install ripgrep`)',
    );
  if (!sandbox) return;
  if (sandbox.mode === 'off') {
    logger.warn(
      'worker: SUBAGENTS_SANDBOX=off — Bash, hooks and stdio MCP servers run UNCONFINED, with every file, process and network this user can reach (docs/security.md)',
    );
    return;
  }
  const problem = await sandboxProblem(sandbox);
  if (problem)
    logger.warn(
      `worker: ${problem}; Bash calls, hooks and stdio MCP servers will be refused until it can. ${installAdvice}.`,
    );
  else logger.info('worker: Bash, hooks and stdio MCP servers run in the bubblewrap sandbox');
}
