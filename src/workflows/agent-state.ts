import type { AgentWorkflowInput, CarriedAgentState } from '../shared/agent';
import { extendConversationHash, emptyConversationHash } from '../shared/conversation-hash';
import { addTokenUsage, emptyTokenUsage, type MessageParam, type TokenUsage } from '../shared/messages';
import type { ContentReplacement, ReadFileRecord, ReadFileState } from '../shared/tools';
import type { WorktreeInfo } from '../shared/worktree';
import { workflowNowMs } from './clock';

/** An agent's conversation and counters, owned by its workflow. Each message is appended once. */
export class AgentState {
  readonly messages: MessageParam[] = [];
  private hash = emptyConversationHash;
  usage: TokenUsage;
  toolUses: number;
  turn: number;
  readFileState: ReadFileState;
  contentReplacements: Record<string, ContentReplacement>;
  readonly startedAtMs: number;
  spawnCount: number;
  descendantUsage: TokenUsage;
  worktree?: WorktreeInfo;

  constructor(carried?: CarriedAgentState) {
    this.usage = carried?.usage ?? emptyTokenUsage();
    this.toolUses = carried?.toolUses ?? 0;
    this.turn = carried?.turn ?? 0;
    this.readFileState = { ...(carried?.readFileState ?? {}) };
    this.contentReplacements = { ...(carried?.contentReplacements ?? {}) };
    this.startedAtMs = carried?.startedAtMs ?? workflowNowMs();
    this.spawnCount = carried?.spawnCount ?? 0;
    this.descendantUsage = carried?.descendantUsage ?? emptyTokenUsage();
    this.worktree = carried?.worktree;
    for (const message of carried?.messages ?? []) this.append(message);
  }

  /** Appends a message and extends the conversation hash the model activity checks against. */
  append(message: MessageParam): void {
    this.messages.push(message);
    this.hash = extendConversationHash(this.hash, message);
  }

  get conversationHash(): string {
    return this.hash;
  }

  addUsage(usage: TokenUsage): void {
    this.usage = addTokenUsage(this.usage, usage);
  }

  recordReadFiles(records: ReadFileRecord[]): void {
    for (const record of records) this.readFileState[record.path] = record;
  }

  /** Inherited read-file state no longer describes what this agent sees (a fork moved to a worktree). */
  markReadStateStale(): void {
    for (const [path, record] of Object.entries(this.readFileState)) this.readFileState[path] = { ...record, stale: true };
  }

  /** The state continue-as-new or a resume carries. */
  carry(): CarriedAgentState {
    return {
      messages: this.messages,
      usage: this.usage,
      toolUses: this.toolUses,
      turn: this.turn,
      readFileState: this.readFileState,
      contentReplacements: this.contentReplacements,
      startedAtMs: this.startedAtMs,
      spawnCount: this.spawnCount,
      descendantUsage: this.descendantUsage,
      ...(this.worktree ? { worktree: this.worktree } : {}),
    };
  }
}

/** The input a continued run of the same agent starts from. */
export function continuedInput(input: AgentWorkflowInput, state: AgentState, renderedSystemPrompt: string): AgentWorkflowInput {
  return { ...input, renderedSystemPrompt, carried: state.carry() };
}
