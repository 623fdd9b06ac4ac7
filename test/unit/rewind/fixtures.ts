// Builders the rewind unit tests share: messages, checkpoints, boundaries and a finished agent's resume state.
import type { AgentWorkflowInput, CarriedAgentState } from '../../../src/shared/agents/agent';
import { emptyTokenUsage, type MessageParam } from '../../../src/shared/model/messages';
import type { ResumeState } from '../../../src/shared/protocol/definitions';
import { defaultAgentLimits } from '../../../src/shared/protocol/limits';
import { conversationHashOf, type TurnBoundary } from '../../../src/shared/rewind/turns';
import type { TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';

export const t0 = Date.UTC(2030, 0, 1, 12, 0, 0);

export const prompt = (text: string): MessageParam => ({ role: 'user', content: text });
export const toolCall = (id: string, name = 'Bash', text?: string): MessageParam => ({
  role: 'assistant',
  content: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_use', id, name, input: { command: id } }],
});
export const toolResult = (id: string, content = 'ok'): MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content }],
});
export const answer = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** The text of a message whose content is a string or starts with a text, tool_use or tool_result block (for short assertions). */
export function label(message: MessageParam): string {
  if (typeof message.content === 'string') return message.content;
  const first = message.content[0];
  if (first?.type === 'text') return first.text;
  if (first?.type === 'tool_use') return `use:${first.id}`;
  if (first?.type === 'tool_result') return `result:${first.tool_use_id}`;
  return first?.type ?? '';
}

export function checkpoint(turn: number, options: { baseline?: boolean; root?: string } = {}): TurnCheckpoint {
  return {
    turn,
    commit: `c${turn}`.padEnd(40, '0'),
    tree: `t${turn}`.padEnd(40, '0'),
    ref: `refs/subagents/checkpoints/agent-1/${String(turn).padStart(6, '0')}`,
    root: options.root ?? '/repo',
    store: 'repository',
    changed: [],
    changedCount: 0,
    atMs: t0 + turn * 1000,
    ...(options.baseline ? { baseline: true } : {}),
  };
}

/** A boundary numbered `turn` over the first `messageCount` of `messages`, with an optional checkpoint. */
export function boundary(
  turn: number,
  options: {
    messages?: readonly MessageParam[];
    messageCount?: number;
    checkpoint?: TurnCheckpoint;
    runId?: string;
  } = {},
): TurnBoundary {
  const messageCount = options.messageCount ?? 1 + 2 * turn;
  return {
    turn,
    runId: options.runId ?? 'run-1',
    messageCount,
    hash: conversationHashOf((options.messages ?? []).slice(0, messageCount)),
    epoch: 0,
    logLength: messageCount,
    loopTurn: turn,
    atMs: t0 + turn * 1000,
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
  };
}

/** Boundaries 0..last; `checkpoints` puts one on the turns it names. */
export function boundaries(last: number, checkpoints: Record<number, TurnCheckpoint> = {}): TurnBoundary[] {
  return Array.from({ length: last + 1 }, (_, turn) => {
    const found = checkpoints[turn];
    return boundary(turn, found ? { checkpoint: found } : {});
  });
}

export const sourceInput: AgentWorkflowInput = {
  agentId: 'agent-1.2',
  agentType: 'general-purpose',
  name: 'fixer',
  description: 'fix the test',
  prompt: 'Fix the failing test',
  model: 'claude-test-tiny',
  definitionPrompt: 'You are a helpful agent.',
  renderedSystemPrompt: 'rendered system prompt',
  tools: ['Bash', 'Read', 'Edit'],
  cwd: '/repo/pkg',
  workspaceRoot: '/repo',
  permissionMode: 'default',
  maxTurns: 30,
  parentAgentId: 'agent-1',
  rootAgentId: 'agent-1',
  depth: 1,
  limits: defaultAgentLimits,
  isolation: 'worktree',
  forkFrom: { agentId: 'agent-1', runId: 'run-0', messageCount: 3, conversationHash: 'h', directive: 'd' },
  carriedInbox: [],
  carriedBoard: { held: ['task-3'], leaseMs: 60_000 },
  continuedRuns: 2,
};

export const worktree = {
  repoRoot: '/repo',
  path: '/repo/.worktrees/agent-1.2',
  branch: 'subagents/agent-1.2',
  baseCommit: 'b'.repeat(40),
  cwd: '/repo/.worktrees/agent-1.2/pkg',
  mapping: { from: '/repo', to: '/repo/.worktrees/agent-1.2' },
};

/** What a source agent carried at its end: usage, read files, replacements, MCP tools, boundaries. */
export function sourceCarried(turns: TurnBoundary[]): CarriedAgentState {
  return {
    messages: [prompt('Fix the failing test'), toolCall('t1'), toolResult('t1'), answer('done')],
    usage: { inputTokens: 900, outputTokens: 80, cacheCreationInputTokens: 400, cacheReadInputTokens: 1200 },
    toolUses: 7,
    turn: 9,
    readFileState: { '/repo/pkg/a.ts': { path: '/repo/pkg/a.ts', mtimeMs: 1, size: 2, sha256: 'f'.repeat(64) } },
    contentReplacements: { t1: { toolUseId: 't1', path: '/tmp/t1.txt', originalChars: 90_000 } },
    startedAtMs: t0 - 60_000,
    spawnCount: 3,
    permissionDenials: { Bash: 1 },
    descendantUsage: { inputTokens: 50, outputTokens: 5, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    worktree,
    spawnContext: { loaded: { definitions: {}, reports: [], searched: ['/repo/.claude/agents'] } },
    contextOverheadTokens: 2100,
    awaiting: { kind: 'final', text: 'done', stopReason: 'end_turn' },
    extraTools: {
      descriptors: [],
      mcpServers: {},
      status: [{ name: 'docs', state: 'connected', tools: 2, transport: 'stdio' }],
    },
    todos: [{ content: 'fix it', status: 'completed', activeForm: 'fixing it' }],
    memoryDir: '/home/user/.claude/agent-memory/fixer',
    turns,
  };
}

/** A finished source agent as the `resumeState` query returns it. */
export function finishedSource(turns: TurnBoundary[], overrides: Partial<ResumeState> = {}): ResumeState {
  return {
    input: sourceInput,
    carried: sourceCarried(turns),
    status: 'finished',
    tree: { tokensUsed: 5000, budgetExceeded: false, paused: false, alwaysAllowed: ['Bash'], finishedNodes: [] },
    ...overrides,
  };
}

export const zeroUsage = emptyTokenUsage();
