import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../../src/shared/model/messages';
import { branchDiff, turnTextLimit, type BranchSide, type BranchTurn } from '../../../src/shared/rewind/branch-diff';
import { conversationHashOf, type TurnBoundary } from '../../../src/shared/rewind/turns';
import type { TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';

const t0 = Date.UTC(2030, 0, 1, 12, 0, 0);

const prompt = (text: string): MessageParam => ({ role: 'user', content: text });
const toolCall = (id: string, name: string, input: Record<string, unknown>, text?: string): MessageParam => ({
  role: 'assistant',
  content: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_use', id, name, input }],
});
const toolResult = (id: string, content = 'ok'): MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content }],
});
const answer = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });

function checkpoint(turn: number, changed: string[], tree = `${turn}`.repeat(40).slice(0, 40)): TurnCheckpoint {
  return {
    turn,
    commit: `c${turn}`.padEnd(40, '0'),
    tree,
    ref: `refs/subagents/checkpoints/agent/${String(turn).padStart(6, '0')}`,
    root: '/repo',
    store: 'repository',
    changed,
    changedCount: changed.length,
    atMs: t0 + turn * 1000,
  };
}

/** Boundaries as the workflow records them: each turn's message count and the hash of the conversation up to it. */
function boundariesOf(
  runId: string,
  messages: readonly MessageParam[],
  counts: readonly number[],
  options: { firstTurn?: number; checkpoints?: Record<number, TurnCheckpoint> } = {},
): TurnBoundary[] {
  return counts.map((messageCount, index) => {
    const turn = (options.firstTurn ?? 0) + index;
    const found = options.checkpoints?.[turn];
    return {
      turn,
      runId,
      messageCount,
      hash: conversationHashOf(messages.slice(0, messageCount)),
      epoch: 0,
      logLength: messageCount,
      loopTurn: turn,
      atMs: t0 + turn * 1000,
      ...(found ? { checkpoint: found } : {}),
    };
  });
}

// A source agent: the opening (turn 0), three tool turns, then its answer (turn 4).
const sourceMessages: MessageParam[] = [
  prompt('Fix the failing test'),
  toolCall('t1', 'Read', { file_path: 'src/a.ts' }),
  toolResult('t1'),
  toolCall('t2', 'Edit', { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' }),
  toolResult('t2'),
  toolCall('t3', 'Bash', { command: 'npm test\n  -- --run', timeout: 1000 }),
  toolResult('t3'),
  answer('The test passes now.'),
];
const sourceCounts = [1, 3, 5, 7, 8];
const source: BranchSide = {
  agentId: 'root',
  boundaries: boundariesOf('run-root', sourceMessages, sourceCounts, {
    checkpoints: { 0: checkpoint(0, []), 2: checkpoint(2, ['src/a.ts']) },
  }),
  messages: sourceMessages,
};

/** A fork of the source at `turn`: its boundaries up to there are the source's, marked inherited. */
function forkOf(turn: number, more: MessageParam[], moreCounts: number[], checkpoints = {}): BranchSide {
  const messages = [...sourceMessages.slice(0, sourceCounts[turn]), ...more];
  const inherited = source.boundaries.slice(0, turn + 1).map((boundary) => ({ ...boundary, inheritedFrom: 'root' }));
  const own = boundariesOf('run-fork', messages, moreCounts, { firstTurn: turn + 1, checkpoints });
  return { agentId: 'root.fork-1', boundaries: [...inherited, ...own], messages };
}

const content = (turn: BranchTurn) => turn.content;

describe('branchDiff', () => {
  it('finds a fork sharing turns 0..N and lists what each side did after', () => {
    const fork = forkOf(
      2,
      [toolCall('f1', 'Write', { file_path: 'src/b.ts', content: 'b' }), toolResult('f1'), answer('Wrote b.')],
      [7, 8],
      { 3: checkpoint(3, ['src/b.ts']) },
    );
    const diff = branchDiff(source, fork);
    expect(diff.sharedThrough).toBe(2);
    expect(diff.sharedFrom).toBe('root');
    expect(diff.a.agentId).toBe('root');
    expect(diff.a.lastTurn).toBe(4);
    expect(diff.a.turns.map((turn) => turn.turn)).toEqual([3, 4]);
    expect(content(diff.a.turns[0]!)).toEqual({
      kind: 'messages',
      toolCalls: [{ name: 'Bash', summary: 'Bash npm test -- --run' }],
    });
    expect(content(diff.a.turns[1]!)).toEqual({ kind: 'messages', toolCalls: [], text: 'The test passes now.' });
    expect(diff.b.turns.map((turn) => turn.turn)).toEqual([3, 4]);
    expect(content(diff.b.turns[0]!)).toEqual({
      kind: 'messages',
      toolCalls: [{ name: 'Write', summary: 'Write src/b.ts' }],
    });
    expect(diff.b.turns[0]!.files).toEqual({ changed: ['src/b.ts'], changedCount: 1 });
    expect(diff.b.turns[1]!.atMs).toBe(t0 + 4000);
    expect(diff.filesA?.turn).toBe(2);
    expect(diff.filesB?.turn).toBe(3);
  });

  it('shares everything with a fork at the last turn that has not moved yet, and works either way round', () => {
    const fork = forkOf(4, [], []);
    const diff = branchDiff(fork, source);
    expect(diff.sharedThrough).toBe(4);
    expect(diff.a.turns).toEqual([]);
    expect(diff.b.turns).toEqual([]);
    expect(diff.filesA).toEqual(diff.filesB);
  });

  it('shares the kept turns with a rewound agent, whose later turns were recorded anew', () => {
    // The agent went back to turn 1 and did something else: turns 0..1 are kept, 2.. are new (another run).
    const messages = [...sourceMessages.slice(0, 3), toolCall('r1', 'Grep', { pattern: 'TODO' }), toolResult('r1')];
    const rewound: BranchSide = {
      agentId: 'root',
      boundaries: [...source.boundaries.slice(0, 2), ...boundariesOf('run-root-2', messages, [5], { firstTurn: 2 })],
      messages,
    };
    const diff = branchDiff(source, rewound);
    expect(diff.sharedThrough).toBe(1);
    expect(diff.sharedFrom).toBeUndefined();
    expect(diff.a.turns.map((turn) => turn.turn)).toEqual([2, 3, 4]);
    expect(content(diff.a.turns[0]!)).toEqual({
      kind: 'messages',
      toolCalls: [{ name: 'Edit', summary: 'Edit src/a.ts' }],
    });
    expect(diff.a.turns[0]!.files).toEqual({ changed: ['src/a.ts'], changedCount: 1 });
    expect(diff.b.turns).toHaveLength(1);
    expect(content(diff.b.turns[0]!)).toEqual({
      kind: 'messages',
      toolCalls: [{ name: 'Grep', summary: 'Grep TODO' }],
    });
    // The rewound side's latest files are those of turn 0 (the checkpoint of turn 2 went with the rewind).
    expect(diff.filesB?.turn).toBe(0);
  });

  it('diverges at a turn whose hash differs even when the same run recorded both (a rewind in place)', () => {
    const messages = [...sourceMessages.slice(0, 3), toolCall('r1', 'Glob', { pattern: '**/*.ts' }), toolResult('r1')];
    const inPlace: BranchSide = {
      agentId: 'root',
      boundaries: [...source.boundaries.slice(0, 2), ...boundariesOf('run-root', messages, [5], { firstTurn: 2 })],
      messages,
    };
    expect(branchDiff(source, inPlace).sharedThrough).toBe(1);
  });

  it('shares nothing between unrelated agents, even with the same opening', () => {
    const other: BranchSide = {
      agentId: 'other',
      boundaries: boundariesOf('run-other', sourceMessages.slice(0, 3), [1, 3]),
      messages: sourceMessages.slice(0, 3),
    };
    // Same prompt and same first turn, so the same hashes: but recorded by another agent's run.
    expect(other.boundaries[1]!.hash).toBe(source.boundaries[1]!.hash);
    const diff = branchDiff(source, other);
    expect(diff.sharedThrough).toBe(-1);
    expect(diff.sharedFrom).toBeUndefined();
    expect(diff.a.turns.map((turn) => turn.turn)).toEqual([0, 1, 2, 3, 4]);
    expect(diff.b.turns.map((turn) => turn.turn)).toEqual([0, 1]);
    // Turn 0 is the opening: the prompt, no tool call, no assistant text.
    expect(content(diff.b.turns[0]!)).toEqual({ kind: 'messages', toolCalls: [] });
    expect(diff.filesB).toBeUndefined();
  });

  it('says a turn across a compaction is not available, and reads the turns after it', () => {
    // Compaction after turn 3 (7 messages) left 2: a summary and the last answer; turn 5 then grew it to 4.
    const compacted: MessageParam[] = [
      prompt('Summary of the conversation so far'),
      answer('The test passes now.'),
      toolCall('c1', 'Read', { file_path: 'README.md' }),
      toolResult('c1'),
    ];
    const fork = forkOf(2, [toolCall('f1', 'Write', { file_path: 'b.ts' }), toolResult('f1')], [7]);
    const side: BranchSide = {
      agentId: 'root.fork-1',
      boundaries: [...fork.boundaries, ...boundariesOf('run-fork', compacted, [2, 4], { firstTurn: 4 })],
      messages: compacted,
    };
    const diff = branchDiff(source, side);
    expect(diff.sharedThrough).toBe(2);
    const [turn3, turn4, turn5] = diff.b.turns;
    // Turn 3's messages were compacted away: the last conversation no longer holds them.
    expect(content(turn3!)).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('no longer holds') });
    expect(content(turn4!)).toMatchObject({
      kind: 'unavailable',
      reason: expect.stringContaining('from 7 to 2 messages'),
    });
    expect(content(turn5!)).toEqual({ kind: 'messages', toolCalls: [{ name: 'Read', summary: 'Read README.md' }] });
  });

  it('does not guess when a count grows past a compaction the indexes no longer match', () => {
    // 7 → 9 messages by count, but the conversation was compacted between: the range 7..9 is not that turn.
    const compacted = [prompt('summary'), ...Array.from({ length: 8 }, (_, index) => answer(`line ${index}`))];
    const side: BranchSide = {
      agentId: 'x',
      boundaries: [...source.boundaries.slice(0, 4), ...boundariesOf('run-root', compacted, [9], { firstTurn: 4 })],
      messages: compacted,
    };
    const diff = branchDiff(source, side);
    expect(diff.sharedThrough).toBe(3);
    expect(content(diff.b.turns[0]!)).toMatchObject({ kind: 'unavailable' });
  });

  it('summarizes tool calls on one line each, whatever their input', () => {
    const messages: MessageParam[] = [
      prompt('go'),
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'a',
            name: 'Bash',
            input: { command: 'echo one\necho two', description: 'Two\nlines' },
          },
          {
            type: 'tool_use',
            id: 'b',
            name: 'Agent',
            input: { subagent_type: 'Explore', description: 'Map the code' },
          },
          { type: 'tool_use', id: 'c', name: 'Bash', input: { command: 'x'.repeat(300) } },
          { type: 'tool_use', id: 'd', name: 'mcp__db__query', input: null as unknown as Record<string, unknown> },
          { type: 'tool_use', id: 'e', name: 42 as unknown as string, input: {} },
        ],
      },
    ];
    const side: BranchSide = { agentId: 'x', boundaries: boundariesOf('run-x', messages, [1, 2]), messages };
    const turn = branchDiff(side, { agentId: 'y', boundaries: [], messages: [] }).a.turns[1]!;
    if (turn.content.kind !== 'messages') throw new Error('expected messages');
    expect(turn.content.toolCalls.map((call) => call.summary)).toEqual([
      'Bash Two lines',
      'Agent → Explore: Map the code',
      `Bash ${'x'.repeat(112)}...`,
      'mcp__db__query',
      '(unnamed tool)',
    ]);
    for (const call of turn.content.toolCalls) expect(call.summary).not.toMatch(/\n/);
  });

  it('reports the text of the turn’s last assistant message, the first 200 characters', () => {
    const long = `${'word '.repeat(60)}end`;
    const messages: MessageParam[] = [
      prompt('go'),
      toolCall('a', 'Read', { file_path: 'a' }, 'Let me look first.'),
      toolResult('a'),
      { role: 'assistant', content: long },
      prompt('and?'),
      toolCall('b', 'Read', { file_path: 'b' }, 'Reading b.'),
      toolResult('b'),
      toolCall('c', 'Read', { file_path: 'c' }),
      toolResult('c'),
    ];
    const side: BranchSide = { agentId: 'x', boundaries: boundariesOf('run-x', messages, [1, 4, 9]), messages };
    const [, first, second] = branchDiff(side, { agentId: 'y', boundaries: [], messages: [] }).a.turns;
    // Turn 1 ended with the answer (a string content): cut at 200 characters and marked so.
    expect(content(first!)).toEqual({
      kind: 'messages',
      toolCalls: [{ name: 'Read', summary: 'Read a' }],
      text: long.slice(0, turnTextLimit),
      textTruncated: true,
    });
    // Turn 2's last assistant message is a bare tool call: it did not end with text, though an earlier one had some.
    expect(content(second!)).toEqual({
      kind: 'messages',
      toolCalls: [
        { name: 'Read', summary: 'Read b' },
        { name: 'Read', summary: 'Read c' },
      ],
    });
  });

  it('survives hostile sides: no lists, bad counts, counts past the conversation, odd checkpoints', () => {
    const broken = { agentId: 'broken', boundaries: null, messages: 'nope' } as unknown as BranchSide;
    expect(branchDiff(broken, broken)).toEqual({
      sharedThrough: -1,
      a: { agentId: 'broken', lastTurn: -1, turns: [] },
      b: { agentId: 'broken', lastTurn: -1, turns: [] },
    });
    const messages = [prompt('go'), answer('done')];
    const boundaries = boundariesOf('run-x', messages, [1, 2, 2]);
    boundaries[0] = { ...boundaries[0]!, messageCount: Number.NaN };
    boundaries[2] = { ...boundaries[2]!, messageCount: 50, hash: 'whatever' };
    boundaries[1] = {
      ...boundaries[1]!,
      checkpoint: { changed: ['a', 7, null], changedCount: 'many' } as unknown as TurnCheckpoint,
    };
    const side = {
      agentId: 'x',
      boundaries: [...boundaries, null, 'junk'],
      messages: [...messages, null],
    } as unknown as BranchSide;
    const diff = branchDiff(side, broken);
    expect(diff.a.turns.map((turn) => turn.content.kind)).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(diff.a.turns[1]!.files).toEqual({ changed: ['a'], changedCount: 1 });
  });

  it('takes no turn as shared when the first boundaries differ, even if later ones match', () => {
    const other = {
      ...source,
      boundaries: [{ ...source.boundaries[0]!, hash: 'different' }, ...source.boundaries.slice(1)],
    };
    expect(branchDiff(source, other).sharedThrough).toBe(-1);
  });
});
