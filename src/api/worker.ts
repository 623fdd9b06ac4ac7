/**
 * `durable-subagents/worker`: what a worker process needs (docs/api.md): the plugin for a team's own
 * `Worker.create({ plugins })`, the ready-made workers, custom tools and tool task queues.
 */
export {
  subagentsPlugin,
  SubagentsPlugin,
  workflowsPath,
  workflowBundlerOptions,
  workflowInterceptorModule,
  workflowStackFramesModule,
  workflowPreloadedModules,
  parseWorkflowStacks,
  WorkflowStacksError,
  heartbeatThrottle,
  type SubagentsPluginOptions,
  type WorkflowStacks,
} from '../worker/plugin';
export {
  createAgentWorker,
  createToolWorker,
  createWorkspaceWorker,
  runWorkerFromEnv,
  runTogether,
  type AgentWorkerOptions,
  type WorkerWorkspace,
  type ToolWorkerRequest,
} from '../worker/worker';
export { defineTool, type CustomTool, type CustomToolContext, type CustomToolOptions, type CustomToolOutput } from '../activities/custom-tools/define-tool';
export { parseToolTaskQueues, routableToolNames, type ToolTaskQueues } from '../shared/tools/custom-tools';
export { createDataConverter, createPayloadCodecs } from '../codec/data-converter';
export { setupTelemetry, type Telemetry } from '../worker/observability';
