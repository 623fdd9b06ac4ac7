import type { MessageParam, StopReason, TokenUsage } from './messages';
import type { ContentReplacement, ReadFileState } from './tools';

/** Permission modes (SPEC §1.9). */
export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk' | 'bubble';

/** Terminal status of an agent run. */
export type AgentStatus = 'completed' | 'max_turns' | 'refused' | 'failed' | 'cancelled';

/** State that survives continue-as-new (and is copied, for forks, at creation). */
export interface CarriedAgentState {
  messages: MessageParam[];
  usage: TokenUsage;
  toolUses: number;
  turn: number;
  readFileState: ReadFileState;
  contentReplacements: Record<string, ContentReplacement>;
  startedAtMs: number;
}

/** The one JSON input of `agentWorkflow`. */
export interface AgentWorkflowInput {
  /** Equals the workflow ID. */
  agentId: string;
  agentType: string;
  /** Optional human name, addressable by messages. */
  name?: string;
  /** Short description (the Agent tool's `description`). */
  description?: string;
  /** The task prompt (first user message). */
  prompt: string;
  /** Effective model id (aliases resolved). */
  model: string;
  /** The definition's system prompt body; rendered once with environment facts at start. */
  definitionPrompt: string;
  /** Already-rendered system prompt bytes (threaded to forks; never re-rendered when present). */
  renderedSystemPrompt?: string;
  /** Names of the tools in this agent's pool, in request order. */
  tools: string[];
  /** Working directory; relative paths resolve against it. */
  cwd: string;
  /** File tools are confined to this directory. */
  workspaceRoot: string;
  permissionMode: PermissionMode;
  /** Model calls allowed before the agent stops with MaxTurnsExceeded. */
  maxTurns: number;
  /** max_tokens of each model call. */
  maxOutputTokens?: number;
  /** Tool results longer than this are stored in a file and previewed. */
  maxToolResultChars?: number;
  parentAgentId?: string;
  rootAgentId: string;
  depth: number;
  /** Present when continuing (continue-as-new or resume). */
  carried?: CarriedAgentState;
}

/** What a finished agent returns: a bounded projection, never its history. */
export interface AgentResult {
  agentId: string;
  agentType: string;
  status: AgentStatus;
  finalText: string;
  stopReason?: StopReason;
  error?: string;
  usage: TokenUsage;
  toolUses: number;
  turns: number;
  durationMs: number;
  model: string;
}

/** Live status of one agent (the `status` query). */
export interface AgentStatusSnapshot {
  agentId: string;
  agentType: string;
  name?: string;
  description?: string;
  model: string;
  state: 'starting' | 'calling_model' | 'running_tools' | 'finished';
  result?: AgentResult;
  turn: number;
  maxTurns: number;
  lastTool?: string;
  currentTools: string[];
  usage: TokenUsage;
  toolUses: number;
  startedAtMs: number;
  messageCount: number;
}
