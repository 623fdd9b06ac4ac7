// `durable-subagents`: the client side, loading no worker code (docs/api.md).
export {
  SubagentsClient,
  AgentHandle,
  BudgetChangeRefused,
  type StartAgentOptions,
  type ClientConfig,
  type ForkOptions,
  type ForkResult,
  type RewindOptions,
  type RewindOutcome,
} from '../client/client';
export type { RewindAck, TurnsSnapshot } from '../shared/rewind/rewind-protocol';
export {
  InvalidAgentDefinition,
  mapSdkAgents,
  maxSdkAgentsPromptBytes,
  unsupportedSdkAgentFields,
  type AgentDefinition,
  type MappedSdkAgents,
} from '../client/agent-sdk-definitions';
export {
  approvalAnswer,
  watchApprovals,
  type CanUseTool,
  type CanUseToolOptions,
  type CanUseToolWatcher,
  type CanUseToolWatchOptions,
  type PermissionResult,
  type PermissionUpdate,
} from '../client/can-use-tool';
export type {
  ProgressOptions,
  SdkTaskMessage,
  SdkTaskNotificationMessage,
  SdkTaskProgressMessage,
  SdkTaskStartedMessage,
  SdkTaskUsage,
} from '../client/progress-messages';
export type { TurnBoundary } from '../shared/rewind/turns';
export type { FileChange, TurnCheckpoint } from '../shared/workspace/checkpoints';
export {
  agentStatuses,
  type AgentResult,
  type AgentStatus,
  type AgentStatusSnapshot,
  type PermissionMode,
} from '../shared/agents/agent';
export type { ApprovalRequest, TreeSnapshot, TreeNode } from '../shared/protocol/tree';
export type { AgentLimits } from '../shared/protocol/limits';
export type {
  BudgetAccount,
  BudgetAction,
  BudgetCaps,
  BudgetSnapshot,
  Spending,
  TreeBudget,
} from '../shared/budget/budget';
export { ScriptRunHandle, type ListWorkflowRunsOptions, type ScriptRunListing } from '../client/script-runs';
export { ScriptRunRefused, type RunWorkflowOptions } from '../client/script-run-input';
export { ScriptRefused, resolveScript, type ScriptSource } from '../client/script-source';
export {
  scriptLimits,
  type CheckedScript,
  type ScriptAgentStatus,
  type ScriptAgentView,
  type ScriptJournalEntry,
  type ScriptMeta,
  type ScriptPhaseView,
  type ScriptRunSnapshot,
  type ScriptRunStatus,
} from '../shared/scripts/script-run';
export type { SteerAck } from '../shared/protocol/definitions';
export type { MessageParam } from '../shared/model/messages';
export {
  agentVersion,
  agentVersionOf,
  clearRampingVersion,
  countRunningAgents,
  DeploymentNotFound,
  describeDeployment,
  describeVersion,
  parseVersionKey,
  runningAgentIds,
  setCurrentVersion,
  setRampingVersion,
  treeAgentVersions,
  VersionNotFound,
  versionKey,
  versionPollsQueue,
  type DeploymentDescription,
  type DeploymentVersion,
  type DrainageStatus,
  type VersionDescription,
  type VersionStatus,
  type VersionSummary,
} from '../client/deployments';
export { ErrorType, type ErrorTypeName } from '../shared/protocol/errors';
export { subagentsPlugin, SubagentsPlugin, type SubagentsPluginOptions } from '../worker/plugin';
export {
  defineTool,
  type CustomTool,
  type CustomToolContext,
  type CustomToolOptions,
  type CustomToolOutput,
} from '../shared/tools/define-tool';
