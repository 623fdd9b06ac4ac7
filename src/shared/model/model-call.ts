import type { ModelCallBudget } from '../budget/budget';
import type { ThinkingSetting } from '../agents/agent-definition';
import type { EffortLevel } from '../agents/effort';
import type { ContentBlock, MessageParam, StopReason, TokenUsage, ToolDefinition } from './messages';
import type { ReadBatchOutcome, ToolContext } from '../tools/tools';
import type { FileReadToolName } from '../policy/tool-classification';
import type { SettingsLookRequest, SettingsReloadResult } from '../agents/settings-look';

/** Input of the model activity: a reference to the conversation, never the conversation itself. */
export interface ModelCallInput {
  agentId: string;
  agentType: string;
  agentName?: string;
  /** The run whose state the activity reads (by query). */
  runId: string;
  model: string;
  maxOutputTokens: number;
  /** Extended thinking for this call; absent = off. */
  thinking?: ThinkingSetting;
  /** Effort asked for; the activity sends what the model takes (src/shared/agents/effort.ts). */
  effort?: EffortLevel;
  /** Number of messages the request must contain. */
  messageCount: number;
  /** Rolling hash of those messages (conversationHash); the activity checks what it fetched against it. */
  conversationHash: string;
  turn: number;
  /** Messages added since the previous call, when small: a worker holding the prefix appends them without a query. */
  tail?: ConversationTail;
  /** With a tail from 0: the tool names and system prompt hash, so the worker that rendered the start needs no query. */
  opening?: ConversationOpening;
  /** A compaction turn: summarise the messages instead of continuing (docs/architecture.md, Compaction). */
  compaction?: { contextWindowTokens: number; instructions?: string };
  /** File reads that may start during the stream (docs/architecture.md, "Reads with the model call"). */
  preRead?: PreReadRequest;
  /** A root's settings look, run beside the call (docs/hooks.md, "Where hooks are configured"). */
  settingsLook?: SettingsLookRequest;
  /** The call's reservation in the tree's ledger: its activity charges what each attempt was billed (docs/budgets.md). */
  budget?: ModelCallBudget;
}

/** See {@link ModelCallInput.preRead}. */
export interface PreReadRequest {
  context: ToolContext;
  tools: FileReadToolName[];
}

/** Messages from index `from` on, carried in the model call's input. */
export interface ConversationTail {
  from: number;
  messages: MessageParam[];
}

/** See {@link ModelCallInput.opening}. */
export interface ConversationOpening {
  tools: string[];
  systemPromptHash: string;
}

/** What the model activity fetches from the workflow by query. */
export interface ConversationSlice {
  systemPrompt: string;
  tools: string[];
  /** Definitions of the agent's extra tools (MCP), sent after `tools` (src/shared/tools/extra-tools.ts). */
  extraTools?: ToolDefinition[];
  /** Messages from index `from` on. */
  messages: MessageParam[];
  from: number;
  total: number;
}

/** Input of the conversation query. */
export interface ConversationQueryInput {
  from: number;
}

/** Result of the model activity: the assistant message, recorded in history once. */
export interface ModelCallResult {
  id: string;
  content: ContentBlock[];
  stopReason: StopReason;
  usage: TokenUsage;
  model: string;
  /** The API's `request-id` header (absent in results recorded before it was kept). */
  requestId?: string;
  /** With `preRead`: the outcomes of the answer's leading file reads that ran, by tool_use id. */
  preReads?: Record<string, ReadBatchOutcome>;
  /** With `settingsLook`, only when a settings file changed: the look's stamps and what it loaded. */
  settingsLook?: SettingsReloadResult;
  /** A budgeted call: the activity's attempt that answered (its workflow charges it to the tree's ledger). */
  attempt?: number;
  /** A call of a lease whose activity charged the answer itself (docs/budgets.md, Leases): its workflow sends no charge. */
  charged?: boolean;
}
