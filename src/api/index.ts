/**
 * `durable-subagents`: the client side (docs/api.md). Start agents, follow and steer them, read
 * their results; no worker code is loaded.
 */
export { SubagentsClient, AgentHandle, BudgetChangeRefused, type StartAgentOptions, type ClientConfig } from '../client';
export { agentStatuses, type AgentResult, type AgentStatus, type AgentStatusSnapshot, type PermissionMode } from '../shared/agent';
export type { ApprovalRequest, TreeSnapshot, TreeNode } from '../shared/tree';
export type { AgentLimits } from '../shared/limits';
export type { BudgetAccount, BudgetAction, BudgetCaps, BudgetSnapshot, Spending, TreeBudget } from '../shared/budget';
export type { SteerAck } from '../shared/definitions';
export type { MessageParam } from '../shared/messages';
export { ErrorType, type ErrorTypeName } from '../shared/errors';
export { subagentsPlugin, SubagentsPlugin, type SubagentsPluginOptions } from '../plugin';
export { defineTool, type CustomTool, type CustomToolContext, type CustomToolOptions, type CustomToolOutput } from '../activities/custom-tools/define-tool';
