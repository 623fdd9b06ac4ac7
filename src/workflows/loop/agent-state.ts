import type { AwaitingInput, CarriedAgentState, CompactionSummary, RejectedInputs } from '../../shared/agents/agent';
import type { SpawnContext } from '../../shared/agents/agent-definition';
import { addTokenUsage, emptyTokenUsage, type MessageParam, type TokenUsage } from '../../shared/model/messages';
import type { ContentReplacement, ReadFileRecord, ReadFileState, ToolContext } from '../../shared/tools/tools';
import { textOf } from '../../shared/tools/tool-results';
import type { WorktreeInfo } from '../../shared/workspace/worktree';
import { workflowInfo } from '@temporalio/workflow';
import type { ExtraTools } from '../../shared/tools/extra-tools';
import type { Todo } from '../../shared/tools/todos';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { workflowNowMs } from '../runtime/clock';
import { Conversation } from '../context/conversation';
import { conversationLimits } from '../../shared/protocol/limits';
import type { ConversationTail } from '../../shared/model/model-call';
import { emptyConversationHash } from '../../shared/model/conversation-hash';

/** Where an agent was told to work, before any worktree of its own. */
export interface AgentOrigin {
  cwd: string;
  workspaceRoot: string;
  /** Already-rendered system prompt bytes (a fork's parent's, or a continued run's). */
  renderedSystemPrompt?: string;
  /** The tree's settings its parent gave it. */
  treeSettings?: TreeSettings;
}

/** An agent's conversation, counters and place, owned by its workflow. Each message is appended once. */
export class AgentState {
  /** Message count and hash at this run's last model call (not carried to a new run). */
  private lastModelCall?: { count: number; hash: string };
  /** This run rendered its start as a local activity (not carried to a new run). */
  startRenderedLocally = false;
  /** The file reads that came back with the last model call (src/workflows/tools/pre-reads.ts), named in the next call's summary for the UI (not carried). */
  readWithLastCall: string[] = [];
  /** The conversation the model sees, with hashes, sizes and the run's transcript log. */
  readonly conversation: Conversation;
  usage: TokenUsage;
  toolUses: number;
  turn: number;
  readFileState: ReadFileState;
  contentReplacements: Record<string, ContentReplacement>;
  readonly startedAtMs: number;
  spawnCount: number;
  descendantUsage: TokenUsage;
  worktree?: WorktreeInfo;
  /** Agent types loaded at start with the roster; spawns use them for the agent's whole life. */
  spawnContext?: SpawnContext;
  /** The rendered system prompt bytes, sent unchanged on every model call (and threaded to forks). */
  systemPrompt: string;
  compactions: CompactionSummary;
  /** Measured tokens of a request besides its messages (src/workflows/context/context-meter.ts). */
  contextOverheadTokens?: number;
  /** Carried from a run that continued-as-new while waiting for input. */
  awaiting?: AwaitingInput;
  /** History bytes when this run started (its input included): a run is due by size only past its own growth. */
  readonly runStartHistoryBytes: number;
  /** Tools beyond the runtime's own (MCP), snapshotted once at the first start; part of the request prefix like the prompt. */
  extraTools?: ExtraTools;
  /** The todo list the agent keeps with TodoWrite. */
  todos: Todo[];
  /** Tool calls refused before they ran (rules, permission mode, a person, read-only Bash), by tool. */
  permissionDenials: Record<string, number>;
  /** Inputs refused by the input guard (docs/security.md), counted across runs. */
  readonly rejectedInputs: RejectedInputs;
  /** The tree's settings (hooks, permission rules): a root's loaded at its start, a child's from its parent. */
  settings?: TreeSettings;
  /** Its `memory: user` directory (outside the workspace), as its start rendered it. */
  memoryDir?: string;
  /** Times in a row a Stop/SubagentStop hook kept the agent going. */
  stopHookContinuations: number;
  /** The latest non-blocking hook errors and messages (docs/hooks.md). */
  hookNotices: string[];
  /** A hook answered `continue: false` in this turn: the agent stops after it, with this reason. */
  hookStop?: string;

  constructor(
    carried: CarriedAgentState | undefined,
    private readonly origin: AgentOrigin,
  ) {
    this.usage = carried?.usage ?? emptyTokenUsage();
    this.toolUses = carried?.toolUses ?? 0;
    this.turn = carried?.turn ?? 0;
    this.readFileState = { ...(carried?.readFileState ?? {}) };
    this.contentReplacements = { ...(carried?.contentReplacements ?? {}) };
    this.startedAtMs = carried?.startedAtMs ?? workflowNowMs();
    this.spawnCount = carried?.spawnCount ?? 0;
    this.descendantUsage = carried?.descendantUsage ?? emptyTokenUsage();
    this.worktree = carried?.worktree;
    this.spawnContext = carried?.spawnContext;
    this.extraTools = carried?.extraTools;
    this.todos = carried?.todos ?? [];
    this.permissionDenials = { ...(carried?.permissionDenials ?? {}) };
    this.rejectedInputs = { ...(carried?.rejectedInputs ?? { count: 0 }) };
    this.settings = carried?.settings ?? origin.treeSettings;
    this.memoryDir = carried?.memoryDir;
    this.stopHookContinuations = carried?.stopHookContinuations ?? 0;
    this.hookNotices = [...(carried?.hookNotices ?? [])];
    this.systemPrompt = origin.renderedSystemPrompt ?? '';
    this.compactions = carried?.compactions ?? { count: 0 };
    this.contextOverheadTokens = carried?.contextOverheadTokens;
    this.awaiting = carried?.awaiting;
    this.conversation = new Conversation(carried?.messages);
    this.runStartHistoryBytes = workflowInfo().historySize;
  }

  get messages(): readonly MessageParam[] {
    return this.conversation.messages;
  }

  /** Working directory: the one given, or the matching place inside the agent's worktree. */
  get cwd(): string {
    return this.worktree?.cwd ?? this.origin.cwd;
  }

  /** File tools are confined here: the workspace given, or the agent's worktree. */
  get workspaceRoot(): string {
    return this.worktree?.path ?? this.origin.workspaceRoot;
  }

  /** What the agent's file tools are given: where they may act and how large a result may be. */
  toolContext(agentId: string, maxResultChars: number | undefined): ToolContext {
    const sandbox = this.settings?.sandbox;
    return { agentId, workspaceRoot: this.workspaceRoot, cwd: this.cwd, maxResultChars, ...(this.memoryDir ? { memoryDir: this.memoryDir } : {}), ...(sandbox ? { sandbox } : {}) };
  }

  /** Appends a message and extends the conversation hash the model activity checks against. */
  append(message: MessageParam): void {
    this.conversation.append(message);
  }

  get conversationHash(): string {
    return this.conversation.hash;
  }

  /**
   * The messages the next model call carries inline (those since this run's previous call, when small),
   * and remembers this call. A new run starts without: its first call's worker reads everything by query.
   */
  modelCallTail(): ConversationTail | undefined {
    // A run whose start this worker rendered: its first call may carry all its messages (src/activities/rendered-starts.ts).
    const last = this.lastModelCall ?? (this.startRenderedLocally && !this.extraTools ? { count: 0, hash: emptyConversationHash } : undefined);
    this.lastModelCall = { count: this.conversation.messages.length, hash: this.conversation.hash };
    return last ? this.conversation.tailSince(last.count, last.hash, conversationLimits.maxInlineTailBytes) : undefined;
  }

  addUsage(usage: TokenUsage): void {
    this.usage = addTokenUsage(this.usage, usage);
  }

  addDescendantUsage(usage: TokenUsage): void {
    this.descendantUsage = addTokenUsage(this.descendantUsage, usage);
  }

  /** This agent's usage plus every finished descendant's. */
  get treeUsage(): TokenUsage {
    return addTokenUsage(this.usage, this.descendantUsage);
  }

  recordReadFiles(records: ReadFileRecord[]): void {
    for (const record of records) this.readFileState[record.path] = record;
  }

  recordReplacement(replacement: ContentReplacement): void {
    this.contentReplacements[replacement.toolUseId] = replacement;
  }

  /** Inherited read-file state no longer describes what this agent sees (a fork moved to a worktree). */
  markReadStateStale(): void {
    for (const [path, record] of Object.entries(this.readFileState)) this.readFileState[path] = { ...record, stale: true };
  }

  /** The text of the latest assistant message (what a stopped or interrupted agent reports). */
  lastAssistantText(): string {
    for (let index = this.messages.length - 1; index >= 0; index--) {
      const message = this.messages[index]!;
      if (message.role === 'assistant') return textOf(message.content);
    }
    return '';
  }

  /** A non-blocking hook error or a hook's message, kept for `status` (the latest 5). */
  recordHookNotice(notice: string): void {
    this.hookNotices = [...this.hookNotices, notice.slice(0, 500)].slice(-5);
  }

  /** A call of `tool` was refused before it ran. */
  recordDenial(tool: string): void {
    this.permissionDenials[tool] = (this.permissionDenials[tool] ?? 0) + 1;
  }

  /** Takes the next child id (`<agentId>.<n>`); taken before anything awaits, so concurrent spawns get ids in call order. */
  nextChildId(agentId: string): string {
    this.spawnCount += 1;
    return `${agentId}.${this.spawnCount}`;
  }

  /** The state continue-as-new or a resume carries. */
  carry(): CarriedAgentState {
    return {
      messages: [...this.messages],
      usage: this.usage,
      toolUses: this.toolUses,
      turn: this.turn,
      readFileState: this.readFileState,
      contentReplacements: this.contentReplacements,
      startedAtMs: this.startedAtMs,
      spawnCount: this.spawnCount,
      descendantUsage: this.descendantUsage,
      ...(this.worktree ? { worktree: this.worktree } : {}),
      ...(this.spawnContext ? { spawnContext: this.spawnContext } : {}),
      ...(this.compactions.count > 0 ? { compactions: this.compactions } : {}),
      ...(this.contextOverheadTokens !== undefined ? { contextOverheadTokens: this.contextOverheadTokens } : {}),
      ...(this.extraTools ? { extraTools: this.extraTools } : {}),
      ...(this.todos.length > 0 ? { todos: this.todos } : {}),
      ...(Object.keys(this.permissionDenials).length > 0 ? { permissionDenials: this.permissionDenials } : {}),
      ...(this.rejectedInputs.count > 0 ? { rejectedInputs: this.rejectedInputs } : {}),
      ...(this.settings ? { settings: this.settings } : {}),
      ...(this.memoryDir ? { memoryDir: this.memoryDir } : {}),
      ...(this.stopHookContinuations > 0 ? { stopHookContinuations: this.stopHookContinuations } : {}),
      ...(this.hookNotices.length > 0 ? { hookNotices: this.hookNotices } : {}),
    };
  }
}
