// `durable-subagents/worker`: the plugin, ready-made workers and custom tools for a worker process (docs/api.md).
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
export {
  defineTool,
  type CustomTool,
  type CustomToolContext,
  type CustomToolOptions,
  type CustomToolOutput,
} from '../shared/tools/define-tool';
export { parseToolTaskQueues, routableToolNames, type ToolTaskQueues } from '../shared/tools/custom-tools';
export { createDataConverter, createPayloadCodecs } from '../codec/data-converter';
export { setupTelemetry, type Telemetry } from '../worker/observability';
