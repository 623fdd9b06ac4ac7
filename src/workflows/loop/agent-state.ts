import type { AwaitingInput, CarriedAgentState, CompactionSummary, RejectedInputs } from '../../shared/agents/agent';
import type { SpawnContext } from '../../shared/agents/agent-definition';
import { addTokenUsage, emptyTokenUsage, type MessageParam, type TokenUsage } from '../../shared/model/messages';
import type { ContentReplacement, ReadFileRecord, ReadFileState, ToolContext } from '../../shared/tools/tools';
import { textOf } from '../../shared/tools/tool-results';
import type { WorktreeInfo } from '../../shared/workspace/worktree';
import { workflowInfo } from '@temporalio/workflow';
import type { ExtraTools } from '../../shared/tools/extra-tools';
import type { AgentStart } from '../../shared/agents/agent-start';
import type { CompactionRecord } from '../../shared/model/compaction';
import type { Todo } from '../../shared/tools/todos';
import type { PermissionMode } from '../../shared/agents/permission-mode';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { workflowNowMs } from '../runtime/clock';
import { HookRecord } from '../tools/hook-record';
import { HookPermissions } from '../tools/session-permissions';
import { StructuredOutputRecord } from '../tools/structured-output-record';
import { Conversation } from '../context/conversation';
import { TurnLog } from '../rewind/turn-log';
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
  /** The permission mode it started in (a PermissionRequest hook may change it later). */
  permissionMode: PermissionMode;
}

/** Read-file entries kept after a compaction at most (the oldest go first). */
const maxReadFileEntriesAfterCompaction = 500;

/** An agent's conversation, counters and place; read by every part, written only through the intent methods here. */
export class AgentState {
  /** Message count and hash at this run's last model call (not carried to a new run). */
  private lastModelCall?: { count: number; hash: string };
  /** This run rendered its start as a local activity (not carried to a new run). */
  private renderedLocally = false;
  /** The file reads that came back with the last model call (src/workflows/tools/pre-reads.ts), named in the next call's summary for the UI (not carried). */
  private readsWithLastCall: string[] = [];
  /** The conversation the model sees, with hashes, sizes and the run's transcript log. */
  readonly conversation: Conversation;
  private ownUsage: TokenUsage;
  private toolUseCount: number;
  private turnCount: number;
  private readFiles: ReadFileState;
  private replacements: Record<string, ContentReplacement>;
  readonly startedAtMs: number;
  private childCount: number;
  private descendantsUsage: TokenUsage;
  private ownWorktree?: WorktreeInfo;
  /** Agent types loaded at start with the roster; spawns use them for the agent's whole life. */
  private loadedSpawnContext?: SpawnContext;
  /** The rendered system prompt bytes, sent unchanged on every model call (and threaded to forks). */
  private renderedSystemPrompt: string;
  private compactionSummary: CompactionSummary;
  /** Measured tokens of a request besides its messages (src/workflows/context/context-meter.ts). */
  private overheadTokens?: number;
  /** Carried from a run that continued-as-new while waiting for input. */
  private carriedAwaiting?: AwaitingInput;
  /** History bytes when this run started (its input included): a run is due by size only past its own growth. */
  readonly runStartHistoryBytes: number;
  /** Tools beyond the runtime's own (MCP), snapshotted once at the first start; part of the request prefix like the prompt. */
  private snapshotExtraTools?: ExtraTools;
  private todoList: Todo[];
  /** Tool calls refused before they ran (rules, permission mode, a person, read-only Bash), by tool. */
  readonly permissionDenials: Record<string, number>;
  /** Inputs refused by the input guard (docs/security.md), counted across runs. */
  readonly rejectedInputs: RejectedInputs;
  /** The tree's settings (hooks, permission rules): a root's loaded at its start, a child's from its parent. */
  private treeSettings?: TreeSettings;
  /** Its `memory: user` directory (outside the workspace), as its start rendered it. */
  private memoryDirectory?: string;
  /** Hook notices, a hook's stop, Stop-hook continuations: owned by src/workflows/tools/hooks.ts. */
  readonly hooks: HookRecord;
  /** Rules and a mode PermissionRequest hooks granted (docs/hooks.md): owned by src/workflows/tools/permission-hooks.ts. */
  readonly permissions: HookPermissions;
  /** StructuredOutput's attempts and answer (an agent with `outputSchema`): owned by src/workflows/tools/structured-output.ts. */
  readonly structuredOutput: StructuredOutputRecord;
  /** Its turn boundaries and workspace checkpoints (docs/rewind.md): owned by src/workflows/rewind/. */
  readonly turns: TurnLog;

  constructor(
    carried: CarriedAgentState | undefined,
    private readonly origin: AgentOrigin,
  ) {
    this.ownUsage = carried?.usage ?? emptyTokenUsage();
    this.toolUseCount = carried?.toolUses ?? 0;
    this.turnCount = carried?.turn ?? 0;
    this.readFiles = { ...(carried?.readFileState ?? {}) };
    this.replacements = { ...(carried?.contentReplacements ?? {}) };
    this.startedAtMs = carried?.startedAtMs ?? workflowNowMs();
    this.childCount = carried?.spawnCount ?? 0;
    this.descendantsUsage = carried?.descendantUsage ?? emptyTokenUsage();
    this.ownWorktree = carried?.worktree;
    this.loadedSpawnContext = carried?.spawnContext;
    this.snapshotExtraTools = carried?.extraTools;
    this.todoList = carried?.todos ?? [];
    this.permissionDenials = { ...(carried?.permissionDenials ?? {}) };
    this.rejectedInputs = { ...(carried?.rejectedInputs ?? { count: 0 }) };
    this.treeSettings = carried?.settings ?? origin.treeSettings;
    this.memoryDirectory = carried?.memoryDir;
    this.hooks = new HookRecord(carried);
    this.permissions = new HookPermissions(carried?.sessionPermissions, origin.permissionMode);
    this.structuredOutput = new StructuredOutputRecord(carried);
    this.turns = new TurnLog(carried?.turns);
    this.renderedSystemPrompt = origin.renderedSystemPrompt ?? '';
    this.compactionSummary = carried?.compactions ?? { count: 0 };
    this.overheadTokens = carried?.contextOverheadTokens;
    this.carriedAwaiting = carried?.awaiting;
    this.conversation = new Conversation(carried?.messages);
    this.runStartHistoryBytes = workflowInfo().historySize;
  }

  get usage(): TokenUsage {
    return this.ownUsage;
  }
  get toolUses(): number {
    return this.toolUseCount;
  }
  get turn(): number {
    return this.turnCount;
  }
  get readFileState(): ReadFileState {
    return this.readFiles;
  }
  get contentReplacements(): Readonly<Record<string, ContentReplacement>> {
    return this.replacements;
  }
  get spawnCount(): number {
    return this.childCount;
  }
  get descendantUsage(): TokenUsage {
    return this.descendantsUsage;
  }
  get worktree(): WorktreeInfo | undefined {
    return this.ownWorktree;
  }
  get spawnContext(): SpawnContext | undefined {
    return this.loadedSpawnContext;
  }
  get systemPrompt(): string {
    return this.renderedSystemPrompt;
  }
  get compactions(): CompactionSummary {
    return this.compactionSummary;
  }
  get contextOverheadTokens(): number | undefined {
    return this.overheadTokens;
  }
  get awaiting(): AwaitingInput | undefined {
    return this.carriedAwaiting;
  }
  get extraTools(): ExtraTools | undefined {
    return this.snapshotExtraTools;
  }
  get todos(): Todo[] {
    return this.todoList;
  }
  get settings(): TreeSettings | undefined {
    return this.treeSettings;
  }
  get memoryDir(): string | undefined {
    return this.memoryDirectory;
  }
  get startRenderedLocally(): boolean {
    return this.renderedLocally;
  }
  get readWithLastCall(): readonly string[] {
    return this.readsWithLastCall;
  }

  /** Run setup: the agent's own worktree (isolation), made once. */
  useWorktree(worktree: WorktreeInfo): void {
    this.ownWorktree = worktree;
  }

  /** The ending removed the agent's worktree: its cwd is its origin's again (where WorktreeRemove hooks run). */
  leaveRemovedWorktree(): void {
    this.ownWorktree = undefined;
  }

  /** Run setup: what the agent's rendered start gave it (a local activity's when `local`). */
  adoptStart(
    start: Pick<AgentStart, 'systemPrompt' | 'spawnContext' | 'memoryDirectory' | 'settings'>,
    local: boolean,
  ): void {
    this.renderedLocally = local;
    if (start.settings) this.treeSettings = start.settings;
    if (start.memoryDirectory) this.memoryDirectory = start.memoryDirectory;
    this.renderedSystemPrompt = start.systemPrompt;
    this.loadedSpawnContext ??= start.spawnContext;
  }

  /** A turn boundary: the settings files changed and were re-read (src/workflows/loop/settings-reload.ts). */
  replaceSettings(settings: TreeSettings): void {
    this.treeSettings = settings;
  }

  /** The query loop: the input this run was carried waiting for, taken once. */
  /** A branch that starts at the model's answer (docs/rewind.md): the run begins by waiting, as after that answer. */
  startAwaiting(awaiting: AwaitingInput): void {
    this.carriedAwaiting = awaiting;
  }

  takeAwaiting(): AwaitingInput | undefined {
    const awaiting = this.carriedAwaiting;
    this.carriedAwaiting = undefined;
    return awaiting;
  }

  beginTurn(): void {
    this.turnCount += 1;
  }

  countToolUses(count: number): void {
    this.toolUseCount += count;
  }

  /** The turn: the file reads that came back with its model call, for the next call's summary. */
  noteReadWithCall(summaries: string[]): void {
    this.readsWithLastCall = summaries;
  }

  /** The next model call: the reads to name in its summary, taken once. */
  takeReadWithLastCall(): readonly string[] {
    const summaries = this.readsWithLastCall;
    this.readsWithLastCall = [];
    return summaries;
  }

  /** Extra tools: the snapshot of the agent's extra tools (worker tools, then MCP's joined to them). */
  adoptExtraTools(extraTools: ExtraTools): void {
    this.snapshotExtraTools = extraTools;
  }

  replaceTodos(todos: Todo[]): void {
    this.todoList = todos;
  }

  recordOverheadTokens(tokens: number): void {
    this.overheadTokens = tokens;
  }

  /** Compaction: one more compaction, and forgets what the compacted conversation no longer needs. */
  recordCompaction(record: CompactionRecord): void {
    this.compactionSummary = { count: this.compactionSummary.count + 1, last: record };
    this.pruneCarried();
  }

  /** Replacement records of tool results the conversation no longer holds, and the oldest read-file entries. */
  private pruneCarried(): void {
    const toolUseIds = new Set<string>();
    for (const message of this.messages) {
      if (typeof message.content === 'string') continue;
      for (const block of message.content) if (block.type === 'tool_result') toolUseIds.add(block.tool_use_id);
    }
    this.replacements = Object.fromEntries(Object.entries(this.replacements).filter(([id]) => toolUseIds.has(id)));
    const entries = Object.entries(this.readFiles);
    if (entries.length > maxReadFileEntriesAfterCompaction)
      this.readFiles = Object.fromEntries(entries.slice(-maxReadFileEntriesAfterCompaction));
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
    return {
      agentId,
      workspaceRoot: this.workspaceRoot,
      cwd: this.cwd,
      maxResultChars,
      ...(this.memoryDir ? { memoryDir: this.memoryDir } : {}),
      ...(sandbox ? { sandbox } : {}),
    };
  }

  /** Appends a message and extends the conversation hash the model activity checks against. */
  append(message: MessageParam): void {
    this.conversation.append(message);
  }

  get conversationHash(): string {
    return this.conversation.hash;
  }

  /** The messages the next model call carries inline, if small; a new run's first call reads all by query. */
  modelCallTail(): ConversationTail | undefined {
    // A run whose start this worker rendered: its first call may carry all its messages (src/activities/rendered-starts.ts).
    const last =
      this.lastModelCall ??
      (this.renderedLocally && !this.snapshotExtraTools ? { count: 0, hash: emptyConversationHash } : undefined);
    this.lastModelCall = { count: this.conversation.messages.length, hash: this.conversation.hash };
    return last ? this.conversation.tailSince(last.count, last.hash, conversationLimits.maxInlineTailBytes) : undefined;
  }

  addUsage(usage: TokenUsage): void {
    this.ownUsage = addTokenUsage(this.ownUsage, usage);
  }

  addDescendantUsage(usage: TokenUsage): void {
    this.descendantsUsage = addTokenUsage(this.descendantsUsage, usage);
  }

  /** This agent's usage plus every finished descendant's. */
  get treeUsage(): TokenUsage {
    return addTokenUsage(this.usage, this.descendantUsage);
  }

  recordReadFiles(records: ReadFileRecord[]): void {
    for (const record of records) this.readFiles[record.path] = record;
  }

  recordReplacement(replacement: ContentReplacement): void {
    this.replacements[replacement.toolUseId] = replacement;
  }

  /** Inherited read-file state no longer describes what this agent sees (a fork moved to a worktree). */
  /** A rewind (docs/rewind.md): the turn counter goes back with the conversation; files read since may differ. */
  rewoundTo(loopTurn: number): void {
    this.turnCount = Math.min(this.turnCount, loopTurn);
    this.markReadStateStale();
  }

  markReadStateStale(): void {
    for (const [path, record] of Object.entries(this.readFiles)) this.readFiles[path] = { ...record, stale: true };
  }

  /** The text of the latest assistant message (what a stopped or interrupted agent reports). */
  lastAssistantText(): string {
    for (let index = this.messages.length - 1; index >= 0; index--) {
      const message = this.messages[index]!;
      if (message.role === 'assistant') return textOf(message.content);
    }
    return '';
  }

  recordDenial(tool: string): void {
    this.permissionDenials[tool] = (this.permissionDenials[tool] ?? 0) + 1;
  }

  /** Takes the next child id (`<agentId>.<n>`); taken before anything awaits, so concurrent spawns get ids in call order. */
  nextChildId(agentId: string): string {
    this.childCount += 1;
    return `${agentId}.${this.childCount}`;
  }

  /** The state continue-as-new or a resume carries. */
  carry(): CarriedAgentState {
    return {
      messages: [...this.messages],
      usage: this.usage,
      toolUses: this.toolUses,
      turn: this.turn,
      readFileState: this.readFileState,
      contentReplacements: this.replacements,
      startedAtMs: this.startedAtMs,
      spawnCount: this.spawnCount,
      descendantUsage: this.descendantUsage,
      ...(this.worktree ? { worktree: this.worktree } : {}),
      ...(this.spawnContext ? { spawnContext: this.spawnContext } : {}),
      ...(this.compactions.count > 0 ? { compactions: this.compactions } : {}),
      ...(this.contextOverheadTokens !== undefined ? { contextOverheadTokens: this.contextOverheadTokens } : {}),
      ...(this.extraTools ? { extraTools: this.extraTools } : {}),
      ...(this.todoList.length > 0 ? { todos: this.todoList } : {}),
      ...(Object.keys(this.permissionDenials).length > 0 ? { permissionDenials: this.permissionDenials } : {}),
      ...(this.rejectedInputs.count > 0 ? { rejectedInputs: this.rejectedInputs } : {}),
      ...(this.settings ? { settings: this.settings } : {}),
      ...(this.memoryDir ? { memoryDir: this.memoryDir } : {}),
      ...this.hooks.carry(),
      ...this.permissions.carry(),
      ...this.structuredOutput.carry(),
      ...this.turns.carry(),
    };
  }
}
