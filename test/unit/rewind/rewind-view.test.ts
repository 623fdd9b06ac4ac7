import { describe, expect, it } from 'vitest';
import { renderBranchDiff, renderTurns } from '../../../src/cli/rewind-view';
import type { BranchDiff } from '../../../src/shared/rewind/branch-diff';
import type { TurnBoundary } from '../../../src/shared/rewind/turns';
import type { TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';

const t0 = Date.UTC(2030, 0, 1, 12, 0, 0);

function checkpoint(turn: number, changed: string[], more: Partial<TurnCheckpoint> = {}): TurnCheckpoint {
  return {
    turn,
    commit: `abcdef${turn}`.padEnd(40, '9'),
    tree: `${turn}`.repeat(40),
    ref: `refs/subagents/checkpoints/root/${String(turn).padStart(6, '0')}`,
    root: '/repo',
    store: 'repository',
    changed,
    changedCount: changed.length,
    atMs: t0 + turn * 1000,
    ...more,
  };
}

const forkDiff: BranchDiff = {
  sharedThrough: 2,
  sharedFrom: 'root',
  a: {
    agentId: 'root',
    lastTurn: 4,
    turns: [
      {
        turn: 3,
        atMs: t0 + 3000,
        content: { kind: 'messages', toolCalls: [{ name: 'Bash', summary: 'Bash npm test' }] },
        files: { changed: ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts'], changedCount: 60 },
      },
      {
        turn: 4,
        atMs: t0 + 4000,
        content: { kind: 'messages', toolCalls: [], text: 'Done.\nAll green.', textTruncated: true },
      },
    ],
  },
  b: {
    agentId: 'root.fork-1',
    lastTurn: 3,
    turns: [
      {
        turn: 3,
        atMs: t0 + 5000,
        content: { kind: 'unavailable', reason: 'the conversation went from 7 to 2 messages.' },
        files: { changed: [], changedCount: 3 },
      },
    ],
  },
  filesA: checkpoint(3, ['a.ts']),
  filesB: checkpoint(5, ['z.ts']),
};

describe('renderBranchDiff', () => {
  it('shows the shared prefix, each side’s turns, and the files that differ', () => {
    const text = renderBranchDiff(forkDiff, [
      { path: 'src/new.ts', status: 'added' },
      { path: 'src/a.ts', status: 'modified' },
      { path: 'old.ts', status: 'deleted' },
    ]);
    expect(text).toBe(
      [
        'A: root (turns 0–4) · B: root.fork-1 (turns 0–3)',
        'root and root.fork-1 share turns 0–2 (recorded by root).',
        '',
        'A root: 2 turns after turn 2',
        '  turn 3 · 2030-01-01T12:00:03.000Z',
        '    → Bash npm test',
        '    files: a.ts, b.ts, c.ts, d.ts, e.ts … and 55 more',
        '  turn 4 · 2030-01-01T12:00:04.000Z',
        '    no tool calls',
        '    text: "Done. All green.…"',
        '',
        'B root.fork-1: 1 turn after turn 2',
        '  turn 3 · 2030-01-01T12:00:05.000Z',
        '    messages not available: the conversation went from 7 to 2 messages.',
        '    files: 3 files',
        '',
        "files, from root's latest checkpoint (turn 3, abcdef3) to root.fork-1's (turn 5, abcdef5): 3 files differ",
        '  A src/new.ts',
        '  M src/a.ts',
        '  D old.ts',
      ].join('\n'),
    );
  });

  it('says why the files are not listed', () => {
    const header = "files, from root's latest checkpoint (turn 3, abcdef3) to root.fork-1's (turn 5, abcdef5)";
    expect(renderBranchDiff(forkDiff, { unavailable: 'the repository\nis gone.' })).toContain(
      `${header}: not available: the repository is gone.`,
    );
    expect(renderBranchDiff(forkDiff)).toContain(`${header}: not compared.`);
    expect(renderBranchDiff(forkDiff, [])).toContain(`${header}: the same.`);
    const sameTree = { ...forkDiff, filesB: { ...forkDiff.filesB!, tree: forkDiff.filesA!.tree } };
    expect(renderBranchDiff(sameTree)).toContain(': the same.');
    const { filesB: _b, ...onlyA } = forkDiff;
    expect(renderBranchDiff(onlyA)).toContain(
      'files: only root has a checkpoint (turn 3, abcdef3); root.fork-1 has none to compare with.',
    );
    const { filesA: _a, ...onlyB } = forkDiff;
    expect(renderBranchDiff(onlyB)).toContain('files: only root.fork-1 has a checkpoint (turn 5, abcdef5)');
    const { filesA: _c, filesB: _d, ...neither } = forkDiff;
    expect(renderBranchDiff(neither)).toContain('files: neither side has a checkpoint of its files.');
  });

  it('says when two agents share nothing, or a side has no turn of its own', () => {
    const text = renderBranchDiff({
      sharedThrough: -1,
      a: { agentId: 'one', lastTurn: 0, turns: [] },
      b: { agentId: 'two', lastTurn: -1, turns: [] },
    });
    expect(text.split('\n')).toEqual([
      'A: one (turn 0) · B: two (no turns recorded)',
      'one and two share no turn (not branches of one agent, or they differ from the opening).',
      '',
      'A one: no turns from its start.',
      '',
      'B two: no turns from its start.',
      '',
      'files: neither side has a checkpoint of its files.',
    ]);
  });

  it('keeps what agents wrote on one line each and survives a bad time', () => {
    const text = renderBranchDiff({
      sharedThrough: 0,
      a: {
        agentId: 'a',
        lastTurn: 1,
        turns: [
          {
            turn: 1,
            atMs: Number.NaN,
            content: {
              kind: 'messages',
              toolCalls: [{ name: 'X', summary: 'X one\ntwo\u001b[31m' }],
              text: 'hi\r\nthere',
            },
            files: { changed: ['we\nird.ts'], changedCount: 1 },
          },
        ],
      },
      b: { agentId: 'b', lastTurn: 0, turns: [] },
    });
    expect(text).toContain('  turn 1 · ?\n    → X one two [31m\n    text: "hi there"\n    files: we ird.ts\n');
  });
});

function boundary(turn: number, more: Partial<TurnBoundary> = {}): TurnBoundary {
  return {
    turn,
    runId: 'run-1',
    messageCount: 1 + turn * 2,
    hash: `h${turn}`,
    epoch: 0,
    logLength: 1 + turn * 2,
    loopTurn: turn,
    atMs: t0 + turn * 1000,
    ...more,
  };
}

describe('renderTurns', () => {
  it('draws one row per boundary: time, messages, checkpoint and where it was inherited from', () => {
    const text = renderTurns(
      'root.fork-1',
      [
        boundary(0, { inheritedFrom: 'root', checkpoint: checkpoint(0, []) }),
        boundary(1, { inheritedFrom: 'root' }),
        boundary(12, { checkpoint: checkpoint(12, ['a.ts'], { changedCount: 1 }) }),
      ],
      'files are checkpointed in /repo',
    );
    expect(text).toBe(
      [
        'Agent root.fork-1: turns 0–12',
        'TURN  TIME                      MESSAGES  CHECKPOINT       INHERITED FROM',
        '0     2030-01-01T12:00:00.000Z  1         abcdef0 0 files  root',
        '1     2030-01-01T12:00:01.000Z  3         -                root',
        '12    2030-01-01T12:00:12.000Z  25        abcdef1 1 file   -',
        '',
        'files are checkpointed in /repo',
      ].join('\n'),
    );
  });

  it('says when there are no boundaries, with the note on one line', () => {
    expect(renderTurns('old', [], 'checkpoints unavailable:\nnot a git repository')).toBe(
      'Agent old has no turn boundaries recorded (it started before turn checkpoints existed, or has not started).\n\n' +
        'checkpoints unavailable: not a git repository',
    );
  });

  it('shows a boundary with a bad time or checkpoint without throwing', () => {
    const text = renderTurns('x', [
      boundary(0, { atMs: Number.POSITIVE_INFINITY, checkpoint: { commit: 42 } as unknown as TurnCheckpoint }),
    ]);
    expect(text.split('\n')[2]).toBe('0     ?     1         42 0 files  -');
  });
});
