import type { BranchFrom, TurnBoundary } from '../rewind/turns';
import type { BudgetCaps } from '../budget/budget';
import type { CompactionRecord } from '../model/compaction';
import type { AgentColor } from './agent-colors';
import type { EffortLevel } from './effort';
import type { MemoryScope } from './agent-definition';
import type { ToolRules } from '../policy/tool-rules';
import type { MessageParam, StopReason, TokenUsage } from '../model/messages';
import type { ContentReplacement, ReadFileState } from '../tools/tools';
import type { DefinitionPromptRef, SpawnContext, ThinkingSetting } from './agent-definition';
import type { AgentLimits } from '../protocol/limits';
import type { CarriedTreeState } from '../protocol/tree';
import type { WorktreeInfo, WorktreeOutcome } from '../workspace/worktree';
import type { WorkspaceWorker } from '../workspace/workspace-routing';
import type { ExtraTools, McpServerStatus } from '../tools/extra-tools';
import type { AgentMcpInput } from '../tools/mcp';
import type { CustomToolFilter } from '../tools/custom-tools';
import type { Todo } from '../tools/todos';
import type { HooksConfig } from '../policy/hooks';
import type { PermissionMode } from './permission-mode';
import type { TreeSettings } from './tree-settings';
import type { SdkAgents } from './sdk-agents';
import type { ScriptRunSpec } from '../scripts/script-run';
import type { SessionPermissions } from '../policy/permission-updates';

export type { PermissionMode } from './permission-mode';

/** Every terminal status of an agent run (the input schemas check against it). */
export const agentStatuses = [
  'completed',
  'max_turns',
  'truncated',
  'refused',
  'failed',
  'cancelled',
  'interrupted',
] as const;
export type AgentStatus = (typeof agentStatuses)[number];

/** Something waiting for an agent's next turn boundary. */
export interface InboxItem {
  kind: 'notification' | 'message' | 'steer';
  text: string;
  /** A message's or steer's sender and unwrapped text (a script run passes them on to its agents as they came). */
  from?: string;
  body?: string;
}

/** State that survives continue-as-new (and is copied, for forks, at creation). */
export interface CarriedAgentState {
  messages: MessageParam[];
  usage: TokenUsage;
  toolUses: number;
  turn: number;
  readFileState: ReadFileState;
  contentReplacements: Record<string, ContentReplacement>;
  startedAtMs: number;
  /** Children spawned so far (child ids are `<agentId>.<n>`). */
  spawnCount: number;
  /** Tool calls refused before they ran, by tool (absent: none). */
  permissionDenials?: Record<string, number>;
  /** Inputs refused by the input guard so far (absent: none), so `status` keeps counting across runs. */
  rejectedInputs?: RejectedInputs;
  /** Usage of finished descendants, rolled up. */
  descendantUsage: TokenUsage;
  /** The agent's worktree, once created (a resumed run reuses a kept one). */
  worktree?: WorktreeInfo;
  /** The agent types it loaded at start (its roster): spawns use them for the agent's whole life. */
  spawnContext?: SpawnContext;
  /** Compactions of its conversation so far, and the latest one. */
  compactions?: CompactionSummary;
  /** Tokens a request carries besides its messages (system prompt, tools), as the last model call measured them. */
  contextOverheadTokens?: number;
  /** The run continued-as-new while waiting for input after an answer or an interrupt: the next run waits first. */
  awaiting?: AwaitingInput;
  /** Its extra tools (MCP), snapshotted at its first start; a fork copies its parent's. */
  extraTools?: ExtraTools;
  /** Its todo list (TodoWrite). */
  todos?: Todo[];
  /** The tree's settings (hooks, permission rules): a root's as loaded at its start, a child's from its parent. */
  settings?: TreeSettings;
  /** Its `memory: user` directory, outside the workspace (its file tools may use it). */
  memoryDir?: string;
  /** An agent with `outputSchema`: its StructuredOutput attempts so far and the last validation failure (absent: none). */
  structuredOutput?: { attempts: number; lastFailure?: string };
  /** Times in a row a Stop/SubagentStop hook kept it going (docs/hooks.md); absent: none. */
  stopHookContinuations?: number;
  /** The latest non-blocking hook errors and hook messages (at most 5), for `status`. */
  hookNotices?: string[];
  /** The `once` hook handlers that already ran in this session (their hookIdentity); absent: none. */
  onceHooksRan?: string[];
  /** Its turn boundaries and workspace checkpoints (docs/rewind.md); absent: none yet. */
  turns?: TurnBoundary[];
  /** Rules and a mode PermissionRequest hooks granted for the rest of its run (docs/hooks.md); absent: none. */
  sessionPermissions?: SessionPermissions;
}

/** How many times an agent's conversation was compacted, and the latest compaction. */
export interface CompactionSummary {
  count: number;
  last?: CompactionRecord;
}

/** What an agent that continued-as-new while waiting for input was waiting after. */
export type AwaitingInput =
  { kind: 'final'; text: string; stopReason: StopReason } | { kind: 'interrupted'; by: string; reason: string };

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
  /** The definition's system prompt body; rendered once with environment facts at start ('' when `definitionPromptRef` is given). */
  definitionPrompt: string;
  /** The definition's prompt by digest (a child of a parent whose record of its agent types holds no prompts): its start gets the text. */
  definitionPromptRef?: DefinitionPromptRef;
  /** Already-rendered system prompt bytes (threaded to forks; never re-rendered when present). */
  renderedSystemPrompt?: string;
  /** Names of the tools in this agent's pool, in request order. */
  tools: string[];
  /** MCP servers to start and the filter for their tools; the tools are snapshotted at start (docs/tools.md, MCP). */
  mcp?: AgentMcpInput;
  /** Which of the worker's custom tools the agent gets (docs/tools.md, "Custom tools"); absent: none. */
  customTools?: CustomToolFilter;
  /** Working directory; relative paths resolve against it. */
  cwd: string;
  /** File tools are confined to this directory. */
  workspaceRoot: string;
  /** The worker holding cwd when workers share no filesystem (docs/operations.md); absent: any worker. */
  workspaceWorker?: WorkspaceWorker;
  /** A root that watches its settings files by the `reloadSettings` activity even when none configured anything at its start (docs/hooks.md); absent in runs started before it existed. */
  watchSettings?: 'activity';
  permissionMode: PermissionMode;
  /** Model calls allowed before the agent stops with MaxTurnsExceeded. */
  maxTurns: number;
  /** Caps of its subtree, from its definition and the Agent call, never above its parent's (docs/budgets.md). */
  budgetCaps?: BudgetCaps;
  /** Its model calls reserve from the tree's ledger: the tree or one of its subtrees has caps (docs/budgets.md). */
  budgeted?: boolean;
  /** Its Bash runs read-only commands only (Explore, Plan); others are refused at call time. */
  readOnlyBash?: boolean;
  /** Slim prompt (no CLAUDE.md, no git status) and no resume trailer in its result (Explore, Plan). */
  oneShot?: boolean;
  /** Extended thinking on its model calls; a fork has its parent's. */
  thinking?: ThinkingSetting;
  /** Display colour of its type (front matter `color`), for `ls --tree` and progress lines. */
  color?: AgentColor;
  /** Effort of its model calls (front matter `effort`); a fork has its parent's. */
  effort?: EffortLevel;
  /** Its persistent memory scope: renderAgentStart puts MEMORY.md in its system prompt. */
  memory?: MemoryScope;
  /** Skills preloaded into its first message (`.claude/skills/<name>/SKILL.md`), read by renderAgentStart. */
  skills?: string[];
  /** Tool rules of its definition, checked before each call (src/shared/policy/tool-rules.ts); a fork has its parent's. */
  toolRules?: ToolRules;
  /** Hooks of its definition's front matter (docs/hooks.md); a fork has its parent's. */
  definitionHooks?: HooksConfig;
  /** The tree's settings (hooks, permission rules), given by the parent; a root loads its own at start. */
  treeSettings?: TreeSettings;
  /** Claude Agent SDK `agents` given to `startAgent`, mapped: they win over file types of the same name; children inherit them. */
  sdkAgents?: SdkAgents;
  /** Command hooks given to `startAgent` (a Claude Agent SDK program's): run after the settings files' hooks, by the whole tree. */
  sdkHooks?: HooksConfig;
  /** max_tokens of each model call. */
  maxOutputTokens?: number;
  /** Tool results longer than this are stored in a file and previewed. */
  maxToolResultChars?: number;
  parentAgentId?: string;
  rootAgentId: string;
  depth: number;
  limits: AgentLimits;
  /** Runs in the background of its parent (decides its tool pool and approvals). */
  background?: boolean;
  /** This agent and all its ancestors run in the foreground: approval requests bubble to a person. */
  inForegroundChain?: boolean;
  /** A root that waits for the next message after each answer, until closed or idle this long. */
  interactive?: { idleTimeoutMs: number };
  /** The parent's tool_use id that spawned this agent. */
  parentToolUseId?: string;
  /** Agent types this agent may spawn (from `Agent(a,b)` in its definition); undefined = any. */
  allowedAgentTypes?: string[];
  /** Run in a new git worktree (branch subagents/<agentId>) made from the cwd's repository. */
  isolation?: 'worktree';
  /** A fork child starts from its parent's conversation prefix (read by activity) plus this directive. */
  forkFrom?: { agentId: string; runId: string; messageCount: number; conversationHash: string; directive: string };
  /** A fork of a turn (`subagents fork`) or a rewound finished agent: the conversation it starts from (docs/rewind.md). */
  branchFrom?: BranchFrom;
  /** Present when continuing (continue-as-new or resume). */
  carried?: CarriedAgentState;
  /** Continue-as-new only: what waited for the next turn boundary, and the root's tree bookkeeping. */
  carriedInbox?: InboxItem[];
  carriedTree?: CarriedTreeState;
  /** Runs of this agentId before this one that continued-as-new. */
  continuedRuns?: number;
  /** The named task board the tree shares with other trees (docs/board.md); without it the tree has its own board. */
  taskBoard?: string;
  /** Continue-as-new only: the task-board claims this agent holds, renewed on by the next run. */
  carriedBoard?: CarriedBoardClaims;
  /** A script run (docs/workflows.md): the script it runs instead of a query loop. */
  script?: ScriptRunSpec;
  /** An agent started by a script run's `agent()`: the run's id (it gets no Workflow tool). */
  scriptRunId?: string;
  /** `agent(prompt, {schema})`: the agent answers by calling StructuredOutput with an object valid against this JSON Schema. */
  outputSchema?: Record<string, unknown>;
}

/** Claims an agent holds on its task board, and the board's lease (for the heartbeat interval). */
export interface CarriedBoardClaims {
  held: string[];
  leaseMs: number;
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
  /** This agent's usage plus every finished descendant's. */
  treeUsage: TokenUsage;
  /** Steering or messages that arrived after the agent's last turn and were never delivered. */
  undelivered?: string[];
  /** Worktree isolation: removed when unchanged, else kept with its branch, changed files and commits. */
  worktree?: WorktreeOutcome;
  /** The object an agent started with `outputSchema` submitted (valid against it). */
  structured?: unknown;
}

/** Live status of one agent (the `status` query). */
export interface AgentStatusSnapshot {
  agentId: string;
  agentType: string;
  /** Display colour of its type, when the definition has one. */
  color?: AgentColor;
  name?: string;
  description?: string;
  model: string;
  state: 'starting' | 'calling_model' | 'running_tools' | 'waiting' | 'finished';
  /** What the agent waits for, when it waits: "the next message", "2 background agent(s)", "approval of Bash (…)". */
  waitingFor?: string;
  result?: AgentResult;
  turn: number;
  /** Its turn boundaries (docs/rewind.md): the last one's number, how many hold a file checkpoint, and why files are not checkpointed if they are not. */
  turns?: { last: number; checkpoints: number; checkpointsUnavailable?: string };
  maxTurns: number;
  lastTool?: string;
  currentTools: string[];
  usage: TokenUsage;
  toolUses: number;
  startedAtMs: number;
  messageCount: number;
  /** This agent's usage plus finished descendants'. */
  treeUsage: TokenUsage;
  children: ChildTaskSnapshot[];
  /** False once the agent has finished (steering is refused then). */
  acceptsSteering: boolean;
  /** Approval requests of this agent waiting for a person. */
  pendingApprovals: number;
  /** Its tool calls refused before they ran (tool rules, permission mode, a person's "no", read-only Bash): total and by tool. */
  permissionDenials: { count: number; byTool: Record<string, number> };
  /** Signals refused because their payload was invalid (docs/security.md). */
  rejectedInputs: RejectedInputs;
  /** The latest non-blocking hook errors and hook messages (docs/hooks.md), when there were any. */
  hookNotices?: string[];
  /** The latest assistant text (at most 4000 characters): what TaskOutput shows of a running agent. */
  latestText?: string;
  /** How full its context is, and its compactions (docs/architecture.md, Compaction). */
  context?: ContextSnapshot;
  /** Its todo list (TodoWrite), when it has one. */
  todos?: Todo[];
  /** Its MCP servers as seen at start, when it has any. */
  mcpServers?: McpServerStatus[];
  /** Set while the stall watchdog finds the agent making no progress. */
  stalled?: StallReport;
}

/** The stall watchdog's finding: no progress since `sinceMs` (for at least `afterMs`) in `state`. */
export interface StallReport {
  sinceMs: number;
  afterMs: number;
  state: AgentStatusSnapshot['state'];
  /** What was running: the current tools, or the model call's turn. */
  activity: string;
  action: 'report' | 'stop';
}

/** An agent's context as the status query reports it. */
export interface ContextSnapshot {
  /** Estimated tokens of its next request (system prompt, tools and conversation). */
  estimatedTokens: number;
  /** Its model's context window. */
  window: number;
  /** A compaction runs when the next request would pass this many tokens. */
  compactAtTokens: number;
  /** JSON bytes of its conversation. */
  conversationBytes: number;
  compactions: CompactionSummary;
}

/** Signals an agent refused: how many, and the last one. */
export interface RejectedInputs {
  count: number;
  last?: { name: string; reason: string; atMs: number };
}

/** The parent's record of one child (a task). */
export interface ChildTaskSnapshot {
  agentId: string;
  agentType: string;
  description: string;
  name?: string;
  background: boolean;
  status: 'running' | AgentStatus;
  startedAtMs: number;
  toolUseId: string;
}
