import { emptyConversationHash, extendConversationHash } from '../model/conversation-hash';
import type { ContentBlock, MessageParam } from '../model/messages';
import { toolCallSummary } from '../tools/tool-summary';
import type { TurnCheckpoint } from '../workspace/checkpoints';
import { latestCheckpoint, type TurnBoundary } from './turns';

// `subagents diff` (docs/rewind.md): where two branches of an agent diverge. Pure: the loader and the CLI call it.

/** One agent as `diff` compares it: its boundaries and its conversation at the last one. */
export interface BranchSide {
  agentId: string;
  boundaries: TurnBoundary[];
  /** The side's conversation at its last boundary, exactly. */
  messages: MessageParam[];
}

/** A tool call of a turn: its name and one line saying what it did. */
export interface BranchToolCall {
  name: string;
  summary: string;
}

/** What a turn did, or why its messages cannot be told apart from the side's conversation. */
export type BranchTurnContent =
  | {
      kind: 'messages';
      toolCalls: BranchToolCall[];
      /** The text of the turn's last assistant message (its first `turnTextLimit` characters), when it has any. */
      text?: string;
      textTruncated?: boolean;
    }
  | { kind: 'unavailable'; reason: string };

/** One turn of a side after the shared prefix. */
export interface BranchTurn {
  turn: number;
  atMs: number;
  content: BranchTurnContent;
  /** Files the turn's checkpoint recorded as changed (at most 50 paths) and how many in all; absent: no checkpoint. */
  files?: { changed: string[]; changedCount: number };
}

/** One side of a diff: the turns it took after the shared prefix. */
export interface BranchDiffSide {
  agentId: string;
  /** Its last boundary's turn (-1 when it has none). */
  lastTurn: number;
  turns: BranchTurn[];
}

/** Where two branches diverge: the shared prefix, each side's own turns, and each side's latest files. */
export interface BranchDiff {
  /** The last turn both sides hold as the same recorded boundary; -1 when they share nothing. */
  sharedThrough: number;
  /** The agent the shared boundaries were recorded by, when a side inherited them (a fork). */
  sharedFrom?: string;
  a: BranchDiffSide;
  b: BranchDiffSide;
  /** Each side's latest workspace checkpoint, for the caller to compare (compareLatestFiles). */
  filesA?: TurnCheckpoint;
  filesB?: TurnCheckpoint;
}

/** How much of a turn's closing text a diff carries. */
export const turnTextLimit = 200;

/**
 * Where `a` and `b` diverge. Boundaries are shared while both sides hold, index by index, the same turn with the same
 * conversation hash recorded by the same run: a fork inherits its source's boundaries with their run ids, a rewound
 * agent keeps its own, and two unrelated agents given the same prompt share nothing.
 */
export function branchDiff(a: BranchSide, b: BranchSide): BranchDiff {
  const boundariesA = boundariesOf(a);
  const boundariesB = boundariesOf(b);
  let shared = 0;
  while (
    shared < boundariesA.length &&
    shared < boundariesB.length &&
    sameBoundary(boundariesA[shared]!, boundariesB[shared]!)
  )
    shared++;
  const last = shared > 0 ? boundariesA[shared - 1]! : undefined;
  const sharedFrom = last ? (last.inheritedFrom ?? boundariesB[shared - 1]!.inheritedFrom) : undefined;
  const filesA = latestCheckpoint(boundariesA);
  const filesB = latestCheckpoint(boundariesB);
  return {
    sharedThrough: last ? last.turn : -1,
    ...(sharedFrom !== undefined ? { sharedFrom } : {}),
    a: sideAfter(a.agentId, boundariesA, messagesOf(a), shared),
    b: sideAfter(b.agentId, boundariesB, messagesOf(b), shared),
    ...(filesA ? { filesA } : {}),
    ...(filesB ? { filesB } : {}),
  };
}

// A query answer is data from elsewhere: anything that is not a list is no boundaries or no messages.
const boundariesOf = (side: BranchSide): TurnBoundary[] =>
  Array.isArray(side.boundaries) ? side.boundaries.filter((boundary) => isRecord(boundary)) : [];
const messagesOf = (side: BranchSide): MessageParam[] => (Array.isArray(side.messages) ? side.messages : []);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameBoundary(left: TurnBoundary, right: TurnBoundary): boolean {
  return (
    typeof left.hash === 'string' && left.turn === right.turn && left.hash === right.hash && left.runId === right.runId
  );
}

function sideAfter(
  agentId: string,
  boundaries: TurnBoundary[],
  messages: MessageParam[],
  shared: number,
): BranchDiffSide {
  const prefixHashes = prefixHashesOf(messages);
  const turns: BranchTurn[] = [];
  for (let index = shared; index < boundaries.length; index++) {
    const boundary = boundaries[index]!;
    const files = filesOf(boundary.checkpoint);
    turns.push({
      turn: boundary.turn,
      atMs: boundary.atMs,
      content: turnContent(boundaries[index - 1], boundary, messages, prefixHashes),
      ...(files ? { files } : {}),
    });
  }
  return { agentId, lastTurn: boundaries.length === 0 ? -1 : boundaries[boundaries.length - 1]!.turn, turns };
}

/** prefixHashes[n]: the conversation hash of the first n messages (the chain the workflow records). */
function prefixHashesOf(messages: readonly MessageParam[]): string[] {
  const hashes = [emptyConversationHash];
  for (const message of messages) hashes.push(extendConversationHash(hashes[hashes.length - 1]!, message));
  return hashes;
}

/**
 * The messages between the previous boundary and this one. The index range is trusted only when its end hashes to
 * what the boundary recorded: after a compaction or a rewind the conversation no longer holds the turn as it was.
 */
function turnContent(
  previous: TurnBoundary | undefined,
  boundary: TurnBoundary,
  messages: readonly MessageParam[],
  prefixHashes: readonly string[],
): BranchTurnContent {
  const start = previous ? previous.messageCount : 0;
  const end = boundary.messageCount;
  if (!isCount(start) || !isCount(end))
    return { kind: 'unavailable', reason: 'its boundary records no valid message count.' };
  if (end <= start)
    return {
      kind: 'unavailable',
      reason: `the conversation went from ${start} to ${end} messages (a compaction or a rewind happened in between).`,
    };
  // A fork's or a rewound run's first turn may start after the branch point's last message with its prompt added.
  const branchStart = previous !== undefined && previous.runId !== boundary.runId && boundary.epoch === 0;
  const startHash = previous ? previous.hash : emptyConversationHash;
  if (
    end > messages.length ||
    prefixHashes[end] !== boundary.hash ||
    (prefixHashes[start] !== startHash && !branchStart)
  )
    return {
      kind: 'unavailable',
      reason: 'the conversation at the last boundary no longer holds it as it was (compacted or rewound since).',
    };
  return summarize(messages.slice(start, end));
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function blocksOf(message: MessageParam): ContentBlock[] {
  if (!isRecord(message)) return [];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content.filter((block) => isRecord(block)) : [];
}

/** The turn's tool calls in order, and the text of its last assistant message. */
function summarize(messages: readonly MessageParam[]): BranchTurnContent {
  const toolCalls: BranchToolCall[] = [];
  let text: string | undefined;
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant') continue;
    const blocks = blocksOf(message);
    for (const block of blocks) {
      if (block.type !== 'tool_use') continue;
      const name = typeof block.name === 'string' ? block.name : '(unnamed tool)';
      const input = isRecord(block.input) ? block.input : {};
      toolCalls.push({ name, summary: oneLine(toolCallSummary(name, input)) });
    }
    const said = blocks
      .filter((block) => block.type === 'text' && typeof block.text === 'string')
      .map((block) => (block as { text: string }).text)
      .join('\n')
      .trim();
    text = said === '' ? undefined : said;
  }
  if (text === undefined) return { kind: 'messages', toolCalls };
  return text.length > turnTextLimit
    ? { kind: 'messages', toolCalls, text: text.slice(0, turnTextLimit), textTruncated: true }
    : { kind: 'messages', toolCalls, text };
}

/** A Bash command or a description may span lines; a summary is one. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

function filesOf(checkpoint: TurnCheckpoint | undefined): BranchTurn['files'] {
  if (!isRecord(checkpoint)) return undefined;
  const changed = Array.isArray(checkpoint.changed)
    ? checkpoint.changed.filter((file): file is string => typeof file === 'string')
    : [];
  const changedCount = isCount(checkpoint.changedCount)
    ? Math.max(checkpoint.changedCount, changed.length)
    : changed.length;
  return { changed, changedCount };
}
