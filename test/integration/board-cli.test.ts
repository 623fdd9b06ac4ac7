import { describe, expect, it } from 'vitest';
import type { BoardChangeResult, BoardSnapshot } from '../../src/shared/board/board';
import { useAgentTestEnv } from '../helpers/agent-env';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';

const env = useAgentTestEnv({ kind: 'scripted', scenario: { agents: [], default: [{ text: 'idle root' }] } });
useCliEnvironment(env);

describe('subagents board', () => {
  it('adds, moves, releases and draws a named board, with documented exit codes', async () => {
    const name = `cli-${Date.now().toString(36)}`;
    expect(await cli('board', 'add', name, 'write', 'the', 'docs', '--description', 'all of them')).toMatchObject({
      code: 0,
      out: `created task #1 on board:name:${name}`,
    });
    const second = await cli('board', 'add', name, 'review the docs', '--blocked-by', '1', '--json');
    expect(second.code).toBe(0);
    expect((JSON.parse(second.out) as BoardChangeResult).task).toMatchObject({
      id: '2',
      blockedBy: ['1'],
      createdBy: expect.any(String),
    });

    // Refused by the board: waits for #1 (exit 1); no such task (exit 4); not a status (exit 2).
    expect(await cli('board', 'move', name, '2', 'in_progress', '--by', 'alice')).toMatchObject({
      code: 1,
      err: expect.stringContaining('TaskNotReady: task #2 waits for #1 (pending)'),
    });
    expect(await cli('board', 'move', name, '9', 'completed')).toMatchObject({
      code: 4,
      err: expect.stringContaining('TaskNotFound: task #9'),
    });
    expect(await cli('board', 'move', name, '1', 'done')).toMatchObject({
      code: 2,
      err: expect.stringContaining('one of pending, in_progress, blocked, completed, deleted'),
    });
    expect(await cli('board', 'add', name, '')).toMatchObject({
      code: 2,
      err: expect.stringContaining('"subject" must not be empty'),
    });

    expect(await cli('board', 'move', name, '1', 'in_progress', '--owner', 'alice', '--by', 'lead')).toMatchObject({
      code: 0,
      out: 'task #1 is in_progress (alice)',
    });
    expect(await cli('board', 'release', name, '#1', '--reason', 'stuck', '--by', 'lead')).toMatchObject({ code: 0 });
    expect(await cli('board', 'release', name, '1')).toMatchObject({
      code: 1,
      err: expect.stringContaining('not in progress'),
    });
    expect(await cli('board', 'move', name, '1', 'completed', '--note', 'written', '--by', 'bob')).toMatchObject({
      code: 0,
      out: 'task #1 is completed (bob)',
    });

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
    expect(await cli('board', root.agentId)).toMatchObject({
      code: 4,
      err: expect.stringContaining(`No task board for "${root.agentId}"`),
    });
    expect(await cli('board', 'add', root.agentId, 'from the CLI')).toMatchObject({
      code: 0,
      out: `created task #1 on board:tree:${root.agentId}`,
    });
    expect((await cli('board', root.agentId)).out).toContain('#1 from the CLI');
    expect(await cli('board', 'add', 'not a name!', 'x')).toMatchObject({
      code: 2,
      err: expect.stringContaining('is not a board name'),
    });
    expect(await cli('board')).toMatchObject({
      code: 2,
      err: expect.stringContaining("Give a tree's root agentId or a board name"),
    });
    expect(await cli('board', 'a', 'b')).toMatchObject({ code: 2 });
    expect(await cli('start', 'x', '--board', 'bad name')).toMatchObject({
      code: 2,
      err: expect.stringContaining('Bad task board'),
    });
  });

  it('exits 3 when Temporal is unreachable', async () => {
    const address = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    try {
      expect(await cli('board', 'anything')).toMatchObject({
        code: 3,
        err: expect.stringContaining('Cannot reach Temporal'),
      });
    } finally {
      process.env.TEMPORAL_ADDRESS = address;
    }
  });
});
