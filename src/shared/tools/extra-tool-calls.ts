/** Inputs and results of the MCP and web activities (JSON, one object each). */
import type { ModelCallBudget } from '../budget/budget';
import type { ExtraTools } from './extra-tools';
import type { AgentMcpInput, McpServerSpec } from './mcp';
import type { ToolCallInput } from './tools';

/** How long an agent waits for its required MCP servers before it fails (the seed's 30 s). */
export const requiredMcpServerWaitMs = 30_000;

/** Per-call time limit of an MCP tool call (progress notifications from the server reset it). */
export const mcpToolCallTimeoutMs = 600_000;

/** Input of `startMcpServers`: an agent's servers, started (or found running) on the worker and listed once. */
export interface StartMcpServersInput {
  agentId: string;
  /** Directory stdio servers run in. */
  cwd: string;
  mcp: AgentMcpInput;
  /** How long to wait for required servers; default {@link requiredMcpServerWaitMs}. */
  waitMs?: number;
}

export interface StartMcpServersResult {
  extraTools: ExtraTools;
  /** Required servers that were not connected in time, with why. */
  requiredFailures: { name: string; error: string }[];
}

/** Input of `callMcpTool`: one call of one MCP tool. */
export interface McpToolCallInput {
  agentId: string;
  toolUseId: string;
  cwd: string;
  /** The name the model called (`mcp__server__tool`). */
  toolName: string;
  server: string;
  spec: McpServerSpec;
  /** The tool's own name on the server. */
  tool: string;
  arguments: Record<string, unknown>;
  /** The call may run again after the server died mid-call (read-only or idempotent tools). */
  retrySafe: boolean;
  maxResultChars?: number;
}

/** Input of WebFetch and WebSearch: a tool call plus who calls (for the model requests they make). */
export interface WebToolCallInput extends ToolCallInput {
  agentType: string;
  /** The calling agent's model (WebSearch runs its search with it). */
  model: string;
  /** The tool's model call's reservation in a budgeted tree's ledger: its activity charges what it was billed (docs/budgets.md). */
  budget?: ModelCallBudget;
}
