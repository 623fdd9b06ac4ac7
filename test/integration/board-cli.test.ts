import { describe, expect, it } from 'vitest';
import type { BoardChangeResult, BoardSnapshot } from '../../src/shared/board/board';
import { useAgentTestEnv } from '../helpers/agent-env';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';

const env = useAgentTestEnv({ kind: 'scripted', scenario: { agents: [], default: [{ text: 'idle root' }] } });
useCliEnvironment(env);

/** The CLI refused `args` with `code`, saying `text` on stderr. */
async function expectRefused(args: string[], code: number, text: string): Promise<void> {
  expect(await cli(...args), args.join(' ')).toMatchObject({ code, err: expect.stringContaining(text) });
}

/** The CLI did `args` and printed `out`. */
async function expectSaid(args: string[], out: string): Promise<void> {
  expect(await cli(...args), args.join(' ')).toMatchObject({ code: 0, out });
}

describe('subagents board', () => {
  it('adds, moves, releases and draws a named board, with documented exit codes', async () => {
    const name = `cli-${Date.now().toString(36)}`;
    await expectSaid(
      ['board', 'add', name, 'write', 'the', 'docs', '--description', 'all of them'],
      `created task #1 on board:name:${name}`,
    );
    const second = await cli('board', 'add', name, 'review the docs', '--blocked-by', '1', '--json');
    expect(second.code).toBe(0);
    expect((JSON.parse(second.out) as BoardChangeResult).task).toMatchObject({
      id: '2',
      blockedBy: ['1'],
      createdBy: expect.any(String),
    });

    // Refused by the board: waits for #1 (exit 1); no such task (exit 4); not a status (exit 2).
    await expectRefused(
      ['board', 'move', name, '2', 'in_progress', '--by', 'alice'],
      1,
      'TaskNotReady: task #2 waits for #1 (pending)',
    );
    await expectRefused(['board', 'move', name, '9', 'completed'], 4, 'TaskNotFound: task #9');
    await expectRefused(
      ['board', 'move', name, '1', 'done'],
      2,
      'one of pending, in_progress, blocked, completed, deleted',
    );
    await expectRefused(['board', 'add', name, ''], 2, '"subject" must not be empty');

    await expectSaid(
      ['board', 'move', name, '1', 'in_progress', '--owner', 'alice', '--by', 'lead'],
      'task #1 is in_progress (alice)',
    );
    expect(await cli('board', 'release', name, '#1', '--reason', 'stuck', '--by', 'lead')).toMatchObject({ code: 0 });
    await expectRefused(['board', 'release', name, '1'], 1, 'not in progress');
    await expectSaid(
      ['board', 'move', name, '1', 'completed', '--note', 'written', '--by', 'bob'],
      'task #1 is completed (bob)',
    );

    const json = await cli('board', name, '--json');
    const snapshot = JSON.parse(json.out) as BoardSnapshot;
    expect(snapshot.counts).toMatchObject({ pending: 1, ready: 1, completed: 1 });
    expect(snapshot.events.map((event) => event.kind)).toEqual([
      'created',
      'created',
      'claimed',
      'returned',
      'completed',
    ]);
    expect(snapshot.events[3]).toMatchObject({ by: 'lead', text: 'released by lead: stuck' });

    const drawn = await cli('board', name);
    expect(drawn.code).toBe(0);
    expect(drawn.out).toContain(
      `Task board board:name:${name} · lease 60s · 2 tasks: 1 pending (1 ready, 0 waiting), 0 in progress, 0 blocked, 1 completed`,
    );
    expect(drawn.out).toMatch(/PENDING \(1\)\s+│ IN PROGRESS \(0\)\s+│ BLOCKED \(0\)\s+│ COMPLETED \(1\)/);
    expect(drawn.out).toMatch(/#2 review the docs\s+│\s+│\s+│ #1 write the docs/);
  });

  it("adds to a tree's board by its root agentId, and tells apart what does not exist", async () => {
    const root = await env.start({ prompt: 'just a root' });
    await root.result();
    await expectRefused(['board', root.agentId], 4, `No task board for "${root.agentId}"`);
    await expectSaid(['board', 'add', root.agentId, 'from the CLI'], `created task #1 on board:tree:${root.agentId}`);
    expect((await cli('board', root.agentId)).out).toContain('#1 from the CLI');
    await expectRefused(['board', 'add', 'not a name!', 'x'], 2, 'is not a board name');
    await expectRefused(['board'], 2, "Give a tree's root agentId or a board name");
    expect(await cli('board', 'a', 'b')).toMatchObject({ code: 2 });
    await expectRefused(['start', 'x', '--board', 'bad name'], 2, 'Bad task board');
  });

  it('exits 3 when Temporal is unreachable', async () => {
    const address = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    try {
      await expectRefused(['board', 'anything'], 3, 'Cannot reach Temporal');
    } finally {
      process.env.TEMPORAL_ADDRESS = address;
    }
  });
});
