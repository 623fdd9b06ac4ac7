// The runtime as a Temporal plugin, so a team adds agents to its own worker and client (docs/api.md).
import type Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import { Runtime, type BundleOptions, type Worker, type WorkerOptions } from '@temporalio/worker';
import path from 'node:path';
import { createActivities } from '../activities';
import type { CustomTool } from '../shared/tools/define-tool';
import { McpConnectionPool } from '../mcp/connection-pool';
import type { ShellOptions } from '../config/shell-options';
import { webSettingsFromEnv, type WebToolSettings } from '../activities/web';
import { guardWorkspaceActivities, resolveWorkspaceRoot } from '../activities/workspace-guard';
import { createPayloadCodecs } from '../codec/data-converter';
import { configFromEnv, createAnthropicClient } from '../config/config';
import type { Telemetry } from './observability';
import { parseToolTaskQueues, type ToolTaskQueues } from '../shared/tools/custom-tools';
import { searchAttributeRegistrations } from '../shared/protocol/search-attributes';
import { parseWorkflowStacks, type WorkflowStacks } from '../shared/protocol/workflow-stacks';
import { workspaceActivityNames } from '../shared/workspace/workspace-routing';
import {
  mapSdkAgents,
  type AgentDefinition as SdkAgentDefinition,
  type MappedSdkAgents,
} from '../client/agent-sdk-definitions';
import { definitionPrompts } from '../project/agent-definitions/prompt-store';
import { subagentsPluginName } from '../client/plugin-agents';

export { parseWorkflowStacks, WorkflowStacksError, type WorkflowStacks } from '../shared/protocol/workflow-stacks';

/** Absolute path of a module under src/workflows: the source under tsx, the compiled file in the package. */
const workflowModulePath = (name: string): string =>
  path.join(import.meta.dirname, '..', 'workflows', `${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`);

/** Absolute path of the workflow bundle's entry (for `workflowsPath` / `bundleWorkflowCode`). */
export const workflowsPath = workflowModulePath('index');

/** The interceptor that reads a stop notice off the cancellation request (without it stops also signal). */
export const workflowInterceptorModule = workflowModulePath('runtime/cancel-notice');

/** `modules` with the runtime's interceptor module added once. */
const withAgentInterceptors = (modules: readonly string[] | undefined): string[] => [
  ...new Set([...(modules ?? []), workflowInterceptorModule]),
];

/** Preloaded: short stacks in workflow code, cheaper per-promise capture (docs/operations.md, "Worker tuning"). */
export const workflowStackFramesModule = workflowModulePath('runtime/stack-frames');

/** Preloaded: the stateless workflow modules, evaluated once per worker rather than per run. */
export const workflowPreloadedModules = workflowModulePath('runtime/preloaded-modules');

/** Preloaded: QuickJS's wasm compiled once per worker for script runs (src/workflows/scripts/vm/quickjs-module.ts). */
export const workflowQuickJsModule = path.join(
  import.meta.dirname,
  '..',
  'workflows',
  'scripts',
  'vm',
  `quickjs-module${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
);

/** `modules` with the runtime's preloads added once: the stateless modules, QuickJS, and the stack-frames module unless stacks are full. */
const withAgentPreloads = (modules: readonly string[] | undefined, stacks: WorkflowStacks): string[] => [
  ...new Set([
    ...(modules ?? []),
    ...(stacks === 'full' ? [] : [workflowStackFramesModule]),
    workflowPreloadedModules,
    workflowQuickJsModule,
  ]),
];

/** The workflow bundle's `zod`: evaluated on first use, not with every workflow run (src/workflows/runtime/zod-on-first-use.cjs). */
const zodOnFirstUse = path.join(import.meta.dirname, '..', 'workflows', 'runtime', 'zod-on-first-use.cjs');

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/** Adds the runtime's bundle settings to a webpack configuration (see {@link workflowBundlerOptions}). */
const agentWebpackConfig: WebpackConfigHook = (config) => ({
  ...config,
  resolve: {
    ...config.resolve,
    alias: { ...(config.resolve?.alias as Record<string, string> | undefined), zod$: zodOnFirstUse },
  },
  module: {
    ...config.module,
    parser: {
      ...config.module?.parser,
      // QuickJS's emscripten loader has `new URL('x.wasm', import.meta.url)`: as an asset it reads `self` at load and fails.
      javascript: { ...config.module?.parser?.javascript, url: false },
    },
    rules: [
      ...(config.module?.rules ?? []),
      // QuickJS's wasm (~490 KB) as a base64 string: the workflow sandbox compiles it without file access.
      {
        test: /\.wasm$/,
        type: 'asset/inline',
        generator: { dataUrl: (content: Buffer) => content.toString('base64') },
      },
    ],
  },
});

/** Bundle options for bundling ahead (add interceptors, do not replace them); optional but faster (docs/api.md). */
export const workflowBundlerOptions: {
  webpackConfigHook: WebpackConfigHook;
  workflowInterceptorModules: string[];
  preloadModules: string[];
} = {
  webpackConfigHook: agentWebpackConfig,
  workflowInterceptorModules: [workflowInterceptorModule],
  preloadModules: [workflowStackFramesModule, workflowPreloadedModules, workflowQuickJsModule],
};

/** The same settings after a team's own webpack hook, if any. */
function withAgentWebpackConfig(theirs: WebpackConfigHook | undefined): WebpackConfigHook {
  return theirs ? (config) => theirs(agentWebpackConfig(config)) : agentWebpackConfig;
}

/** Heartbeats reach the server at most this often, so a stop or interrupt reaches a running tool within about a second. */
export const heartbeatThrottle = '1 second';

/** Options of {@link subagentsPlugin}; everything has a default from the environment (docs/configuration.md). */
export interface SubagentsPluginOptions {
  /** Model API client (default: from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL). */
  anthropic?: Anthropic;
  /** Client the activities use to read agents (default: one on the worker's own connection and namespace). */
  client?: Client;
  /** The team's own tools (`defineTool`): usable by agents by name, each its own activity type. */
  tools?: readonly CustomTool[];
  /** Built-in tools whose activities run on another task queue (default: SUBAGENTS_TOOL_TASK_QUEUES). */
  toolTaskQueues?: ToolTaskQueues;
  /** A tool worker: only these tools' activities, no workflows (docs/tools.md, "Tool task queues"). */
  onlyTools?: readonly string[];
  /** Payload codecs of the data converter (default: SUBAGENTS_PAYLOAD_KEY / compression settings). */
  payloadCodecs?: PayloadCodec[];
  /** Tracing (from `setupTelemetry()`): its interceptors and sinks are added. */
  telemetry?: Telemetry;
  /** Register the runtime's search attributes when the worker starts, if missing (default true; needs operator rights). */
  registerSearchAttributes?: boolean;
  toolResultsDir?: string;
  shell?: ShellOptions;
  homeDir?: string;
  web?: WebToolSettings;
  /** A root directory the workspace activities may not leave (SUBAGENTS_WORKSPACE_ROOT) and the name the refusals give. */
  workspaceRoot?: { root: string; name: string };
  /** Stack depth of workflow code when this worker bundles (default SUBAGENTS_WORKFLOW_STACKS, else `short`). */
  workflowStacks?: WorkflowStacks;
  /** Claude Agent SDK `agents` every agent of this worker may start, winning over `.claude/agents` files of the same name (docs/api.md). */
  agents?: Record<string, SdkAgentDefinition>;
}

/** The runtime's plugin; see {@link subagentsPlugin}. */
export class SubagentsPlugin extends SimplePlugin {
  /** MCP connections of this plugin's workers, closed when the last of them stops. */
  readonly mcpConnections: McpConnectionPool;
  private running = 0;
  private readonly workflowStacks: WorkflowStacks;
  /** `agents`, checked and mapped once. */
  private readonly sdkAgents: MappedSdkAgents | undefined;

  constructor(readonly settings: SubagentsPluginOptions = {}) {
    const mcpConnections = new McpConnectionPool(settings.shell?.sandbox ? { sandbox: settings.shell.sandbox } : {});
    const payloadCodecs = settings.payloadCodecs ?? createPayloadCodecs(process.env).codecs;
    const toolWorker = settings.onlyTools !== undefined;
    super({
      name: subagentsPluginName,
      dataConverter: (existing) => ({
        ...existing,
        payloadCodecs: [...(existing?.payloadCodecs ?? []), ...payloadCodecs],
      }),
      ...(settings.telemetry
        ? {
            clientInterceptors: settings.telemetry.clientInterceptors,
            ...(toolWorker ? {} : { workerInterceptors: settings.telemetry.workerInterceptors }),
          }
        : {}),
    });
    this.mcpConnections = mcpConnections;
    this.sdkAgents =
      settings.agents === undefined ? undefined : mapSdkAgents(settings.agents, 'subagentsPlugin agents');
    for (const report of this.sdkAgents?.reports ?? []) console.warn(`worker: ${report.file}: ${report.message}`);
    // A child's prompt is asked by digest: every worker of this plugin has these, whichever one loaded its parent's types.
    for (const definition of Object.values(this.sdkAgents?.agents ?? {})) definitionPrompts.remember(definition.prompt);
    this.workflowStacks = settings.workflowStacks
      ? parseWorkflowStacks(settings.workflowStacks, 'subagentsPlugin workflowStacks')
      : parseWorkflowStacks(process.env.SUBAGENTS_WORKFLOW_STACKS);
    if (settings.onlyTools) {
      const known = new Set([...workspaceActivityNames, ...(settings.tools ?? []).map((tool) => tool.name)]);
      const unknown = settings.onlyTools.filter(
        (name) => !known.has(name) || !isToolActivity(name, settings.tools ?? []),
      );
      if (unknown.length > 0 || settings.onlyTools.length === 0) {
        throw new Error(
          `subagentsPlugin onlyTools: ${unknown.length > 0 ? `${unknown.join(', ')} is not a tool this worker can run` : 'name at least one tool'}; ` +
            'give built-in workspace tools (Read, Glob, Grep, Write, Edit, Bash) or the names of custom tools passed in tools.',
        );
      }
    }
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const activities = this.activitiesFor(options);
    const configured = super.configureWorker(options);
    const hasWorkflows = configured.workflowsPath !== undefined || configured.workflowBundle !== undefined;
    const sinks =
      this.settings.telemetry && !this.settings.onlyTools
        ? { ...this.settings.telemetry.sinks, ...configured.sinks }
        : configured.sinks;
    return {
      ...configured,
      activities: { ...(configured.activities as object | undefined), ...activities },
      // A team's own workflows file stays in charge (it re-exports ours, docs/api.md); a tool worker runs no workflows.
      ...(hasWorkflows || this.settings.onlyTools ? {} : { workflowsPath }),
      // When this worker bundles the workflows (ours, or a team's file re-exporting them), with the runtime's settings.
      ...(configured.workflowBundle || this.settings.onlyTools
        ? {}
        : {
            bundlerOptions: {
              ...configured.bundlerOptions,
              webpackConfigHook: withAgentWebpackConfig(configured.bundlerOptions?.webpackConfigHook),
              preloadModules: withAgentPreloads(configured.bundlerOptions?.preloadModules, this.workflowStacks),
            },
            interceptors: {
              ...configured.interceptors,
              workflowModules: withAgentInterceptors(configured.interceptors?.workflowModules),
            },
          }),
      ...(sinks ? { sinks } : {}),
      maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval ?? heartbeatThrottle,
    };
  }

  /** `bundleWorkflowCode({ plugins })`: the runtime's bundle settings (see {@link workflowBundlerOptions}). */
  override configureBundler(options: BundleOptions): BundleOptions {
    const configured = super.configureBundler(options);
    return {
      ...configured,
      webpackConfigHook: withAgentWebpackConfig(configured.webpackConfigHook),
      workflowInterceptorModules: withAgentInterceptors(configured.workflowInterceptorModules),
      preloadModules: withAgentPreloads(configured.preloadModules, this.workflowStacks),
    };
  }

  override async runWorker(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
    if (this.settings.registerSearchAttributes !== false && !this.settings.onlyTools)
      await registerSearchAttributes(worker);
    this.running += 1;
    try {
      await super.runWorker(worker, next);
    } finally {
      this.running -= 1;
      if (this.running === 0) await this.mcpConnections.closeAll();
    }
  }

  /** The activities this plugin adds to a worker. */
  private activitiesFor(options: WorkerOptions): Record<string, unknown> {
    const { settings } = this;
    const client =
      settings.client ??
      new Client({
        ...(options.connection ? { connection: options.connection } : {}),
        namespace: options.namespace ?? 'default',
        dataConverter: { payloadCodecs: settings.payloadCodecs ?? createPayloadCodecs(process.env).codecs },
        ...(settings.telemetry ? { interceptors: settings.telemetry.clientInterceptors } : {}),
      });
    const all: Record<string, unknown> = createActivities({
      anthropic: settings.anthropic ?? createAnthropicClient(configFromEnv()),
      temporalClient: client,
      toolResultsDir: settings.toolResultsDir,
      shell: settings.shell,
      ...(settings.homeDir ? { homeDir: settings.homeDir } : {}),
      mcpConnections: this.mcpConnections,
      web: settings.web ?? webSettingsFromEnv(process.env),
      customTools: settings.tools ?? [],
      toolTaskQueues: settings.toolTaskQueues ?? parseToolTaskQueues(process.env.SUBAGENTS_TOOL_TASK_QUEUES ?? ''),
      ...(this.sdkAgents && Object.keys(this.sdkAgents.agents).length > 0 ? { sdkAgents: this.sdkAgents.agents } : {}),
    });
    const guarded = settings.workspaceRoot
      ? guardWorkspaceActivities(
          all as ReturnType<typeof createActivities>,
          resolveWorkspaceRoot(settings.workspaceRoot.root),
          settings.workspaceRoot.name,
          workspaceActivityNames,
        )
      : all;
    if (!settings.onlyTools) return guarded;
    return Object.fromEntries(settings.onlyTools.map((name) => [name, (guarded as Record<string, unknown>)[name]]));
  }
}

function isToolActivity(name: string, tools: readonly CustomTool[]): boolean {
  return ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'].includes(name) || tools.some((tool) => tool.name === name);
}

/** Adds the runtime's search attributes the server lacks; a server that refuses (no operator rights) is logged, not fatal. */
async function registerSearchAttributes(worker: Worker): Promise<void> {
  const namespace = worker.options.namespace;
  try {
    const connection = worker.options.connection;
    if (!connection) return;
    const { operatorService } = connection;
    const existing = await operatorService.listSearchAttributes({ namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const typeCodes = { Keyword: 2, Int: 3 } as const; // temporal.api.enums.v1.IndexedValueType
    const missing = Object.entries(searchAttributeRegistrations).filter(([name]) => !have.has(name));
    if (missing.length === 0) return;
    await operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, typeCodes[type]])),
    });
  } catch (error) {
    Runtime.instance().logger.warn(
      `subagents: could not register the search attributes ${Object.keys(searchAttributeRegistrations).join(', ')} (${error instanceof Error ? error.message : String(error)}); ` +
        'register them once by hand (docs/operations.md): listing agents needs them.',
    );
  }
}

/** The plugin for `Worker.create`, `new Client` and `Connection.connect`: agents, payload codec, tracing. */
export function subagentsPlugin(options: SubagentsPluginOptions = {}): SubagentsPlugin {
  return new SubagentsPlugin(options);
}
