import type { AgentWorkflowInput } from '../agents/agent';
import type { ResumeState } from '../protocol/definitions';
import { emptyTokenUsage } from '../model/messages';
import { checkpointAsOf, latestCheckpoint, type BranchFrom, type TurnBoundary } from './turns';

/** What a fork or a rewound run is asked for (docs/rewind.md). */
export interface BranchOptions {
  /** The new agent's id (a fork), or the agent's own (a rewind). */
  agentId: string;
  reason: BranchFrom['reason'];
  prompt?: string;
  /** A fork: where it works (default: where the source started). */
  cwd?: string;
  /** A fork in its own git worktree, holding the source's files as of the turn. */
  worktree?: boolean;
  /** A rewind: the workspace returns to the turn's checkpoint too. */
  files?: boolean;
  /** When the branch starts (the caller's clock: a workflow's or the client's). */
  nowMs: number;
}

/** Why a branch cannot be made at this boundary, if it cannot. */
export function branchRefusal(
  previous: ResumeState,
  boundary: TurnBoundary,
  options: BranchOptions,
): string | undefined {
  const boundaries = previous.carried.turns ?? [];
  if ((options.worktree || options.files) && !checkpointAsOf(boundaries, boundary.turn))
    return `agent ${previous.input.agentId} has no checkpoint of its files at or before turn ${boundary.turn}; ${options.files ? 'rewind without --files' : 'fork without --worktree'} to branch the conversation only.`;
  if (options.worktree && options.cwd) return 'give --cwd or --worktree, not both.';
  return undefined;
}

/** The input of a fork (a new agent) or of a rewound finished agent (its new run), from the source's last run. */
export function branchInput(previous: ResumeState, boundary: TurnBoundary, options: BranchOptions): AgentWorkflowInput {
  const source = previous.input;
  const carried = previous.carried;
  const boundaries = carried.turns ?? [];
  const checkpoint = options.worktree || options.files ? checkpointAsOf(boundaries, boundary.turn) : undefined;
  const latest = options.files ? latestCheckpoint(boundaries) : undefined;
  const branchFrom: BranchFrom = {
    agentId: source.agentId,
    runId: boundary.runId,
    turn: boundary.turn,
    messageCount: boundary.messageCount,
    hash: boundary.hash,
    reason: options.reason,
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    ...(checkpoint ? { restore: { checkpoint, ...(latest ? { latest } : {}) } } : {}),
  };
  const common = {
    ...source,
    forkFrom: undefined,
    carriedInbox: undefined,
    carriedBoard: undefined,
    continuedRuns: undefined,
    branchFrom,
  };
  if (options.reason === 'rewind') {
    const { worktree, ...kept } = carried;
    const keptWorktree = previous.result?.worktree ? previous.result.worktree.kept : true;
    return {
      ...common,
      carriedTree: previous.tree,
      carried: {
        ...kept,
        messages: [],
        turn: boundary.loopTurn,
        awaiting: undefined,
        ...(worktree && keptWorktree ? { worktree } : {}),
      },
    };
  }
  return {
    ...common,
    agentId: options.agentId,
    name: undefined,
    description: `fork of ${source.agentId} at turn ${boundary.turn}`,
    prompt: options.prompt ?? source.prompt,
    cwd: options.cwd ?? source.cwd,
    ...(options.worktree ? { isolation: 'worktree' as const } : { isolation: undefined }),
    carriedTree: undefined,
    carried: {
      messages: [],
      usage: emptyTokenUsage(),
      toolUses: 0,
      turn: boundary.loopTurn,
      readFileState: {},
      // The same replacements and extra tools as the source: its requests' prefix, byte for byte.
      contentReplacements: { ...carried.contentReplacements },
      startedAtMs: options.nowMs,
      spawnCount: 0,
      descendantUsage: emptyTokenUsage(),
      ...(carried.spawnContext ? { spawnContext: carried.spawnContext } : {}),
      ...(carried.extraTools ? { extraTools: carried.extraTools } : {}),
      ...(carried.settings ? { settings: carried.settings } : {}),
      ...(carried.memoryDir ? { memoryDir: carried.memoryDir } : {}),
      ...(carried.contextOverheadTokens !== undefined ? { contextOverheadTokens: carried.contextOverheadTokens } : {}),
    },
  };
}
