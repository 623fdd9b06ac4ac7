import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  groupByAgent,
  listStoredCheckpoints,
  olderThan,
  pruneStoredCheckpoints,
} from '../../../src/checkpoints/inventory';
import { agentIndexDir } from '../../../src/checkpoints/private-index';
import type { StoredCheckpoint } from '../../../src/checkpoints/retention';
import { checkpointRefPrefix } from '../../../src/shared/workspace/checkpoints';
import { cli } from '../../helpers/in-process-cli';
import { createCheckpointFixture, git, userState, type CheckpointFixture } from './helpers';

const day = 24 * 60 * 60 * 1000;

function stored(agentId: string, turn: number, atMs: number): StoredCheckpoint {
  return { ref: `${checkpointRefPrefix}${agentId}/${String(turn).padStart(6, '0')}`, commit: 'c', turn, atMs };
}

describe('groupByAgent and olderThan', () => {
  it('groups refs by agent, newest agent first, and ignores refs that are not checkpoints', () => {
    const listing = [
      stored('a', 0, 1000),
      stored('a', 4, 5000),
      stored('b', 2, 9000),
      { ref: 'refs/subagents/checkpoints/bad/x', commit: 'c', turn: 0, atMs: 1 },
    ];
    expect(groupByAgent(listing)).toEqual([
      { agentId: 'b', count: 1, firstTurn: 2, lastTurn: 2, oldestAtMs: 9000, newestAtMs: 9000 },
      { agentId: 'a', count: 2, firstTurn: 0, lastTurn: 4, oldestAtMs: 1000, newestAtMs: 5000 },
    ]);
  });

  it('selects what is older than the limit, sparing one agent when asked', () => {
    const now = 100 * day;
    const listing = [stored('a', 1, now - 40 * day), stored('a', 2, now - day), stored('b', 1, now - 31 * day)];
    expect(olderThan(listing, 30, now).map((entry) => entry.ref)).toEqual([listing[0]!.ref, listing[2]!.ref]);
    expect(olderThan(listing, 30, now, 'a').map((entry) => entry.ref)).toEqual([listing[2]!.ref]);
    expect(olderThan(listing, 0, now)).toHaveLength(3);
  });
});

describe('checkpoints across agents, on a real repository', () => {
  let fixture: CheckpointFixture;
  beforeEach(async () => {
    fixture = await createCheckpointFixture();
  });
  afterEach(() => fixture.cleanup());
  const options = () => ({ env: fixture.env, homeDir: fixture.home, now: () => fixture.clock.ms });
  const refsOf = (agentId: string) =>
    git(fixture.repository.repo, 'for-each-ref', '--format=%(refname)', `${checkpointRefPrefix}${agentId}/`)
      .split('\n')
      .filter(Boolean);

  it('lists each agent with its checkpoints, and prunes by age across agents', async () => {
    const repo = fixture.repository.repo;
    await fs.writeFile(path.join(repo, 'a.txt'), 'one');
    const first = await fixture.record(0, undefined, 'old-agent');
    await fs.writeFile(path.join(repo, 'a.txt'), 'two');
    await fixture.record(1, first, 'old-agent');
    fixture.clock.ms += 20 * day;
    await fs.writeFile(path.join(repo, 'a.txt'), 'three');
    await fixture.record(0, undefined, 'young-agent');

    const listed = await listStoredCheckpoints(repo, options());
    expect(listed).toMatchObject({ kind: 'store', store: 'repository' });
    if (listed.kind !== 'store') return;
    expect(listed.agents.map((agent) => [agent.agentId, agent.count, agent.firstTurn, agent.lastTurn])).toEqual([
      ['young-agent', 1, 0, 0],
      ['old-agent', 2, 0, 1],
    ]);

    const before = await userState(repo);
    const pruned = await pruneStoredCheckpoints(repo, 10, options());
    expect(pruned).toMatchObject({ removed: [{ agentId: 'old-agent', count: 2 }] });
    expect(refsOf('old-agent')).toEqual([]);
    expect(refsOf('young-agent')).toHaveLength(1);
    expect(await userState(repo)).toEqual(before);
  });

  it("an agent's first checkpoint sweeps other agents' checkpoints past the age limit, and their indexes", async () => {
    const repo = fixture.repository.repo;
    await fs.writeFile(path.join(repo, 'a.txt'), 'one');
    await fixture.record(0, undefined, 'finished-long-ago');
    await fixture.record(0, undefined, 'finished-lately');
    const staleIndex = agentIndexDir({ commonDir: path.join(repo, '.git') }, 'finished-long-ago');
    expect(existsSync(staleIndex)).toBe(true);
    // Its index was last written long ago too (a running agent's index is fresh).
    const longAgo = new Date(Date.now() - 60 * day);
    await fs.utimes(staleIndex, longAgo, longAgo);

    fixture.clock.ms += 25 * day;
    await fs.writeFile(path.join(repo, 'a.txt'), 'two');
    const lately = await fixture.record(1, undefined, 'finished-lately');
    fixture.clock.ms += 10 * day; // finished-long-ago's checkpoint is 35 days old, finished-lately's newest 10
    await fs.writeFile(path.join(repo, 'a.txt'), 'three');
    await fixture.record(0, undefined, 'newcomer');
    expect(refsOf('finished-long-ago')).toEqual([]);
    expect(existsSync(staleIndex)).toBe(false);
    // finished-lately keeps its young checkpoint; its 35-day-old turn 0 is swept with the other.
    expect(refsOf('finished-lately')).toEqual([lately.ref]);
    expect(refsOf('newcomer')).toHaveLength(1);

    // Only an agent's first checkpoint sweeps: a later one (previous given) leaves others' old refs to the next.
    fixture.clock.ms += 40 * day;
    await fs.writeFile(path.join(repo, 'a.txt'), 'four');
    await fixture.record(2, lately, 'finished-lately');
    expect(refsOf('newcomer')).toHaveLength(1);
  });

  describe('subagents checkpoints', () => {
    it('lists, drops one agent, prunes by age, and refuses bad input without changing anything', async () => {
      const repo = fixture.repository.repo;
      let last: Awaited<ReturnType<typeof cli>>;
      fixture.clock.ms = Date.now() - 20 * day; // under the 30-day sweep of root-2's first checkpoint
      await fs.writeFile(path.join(repo, 'a.txt'), 'one');
      await fixture.record(0, undefined, 'root-1');
      await fixture.record(0, undefined, 'root-1.1');
      fixture.clock.ms = Date.now() - 60_000;
      await fs.writeFile(path.join(repo, 'a.txt'), 'two');
      await fixture.record(0, undefined, 'root-2');

      expect((last = await cli('checkpoints', '--dir', repo)).code).toBe(0);
      const listing = last.out;
      expect(listing).toMatch(/AGENT\s+CHECKPOINTS\s+TURNS\s+NEWEST\s+OLDEST/);
      expect(listing).toMatch(/root-2\s+1\s+0\s+1 min ago/);
      expect(listing).toMatch(/root-1\.1\s+1\s+0\s+20 d ago/);

      expect((last = await cli('checkpoints', '--dir', repo, '--drop', '../../refs/heads/main')).code).toBe(2);
      expect(`${last.out}${last.err}`).toContain('cannot name a checkpoint');
      expect((last = await cli('checkpoints', '--dir', repo, '--older-than', '3')).code).toBe(2);
      expect((last = await cli('checkpoints', '--dir', repo, '--prune', '--older-than', '-1')).code).toBe(2);
      expect((last = await cli('checkpoints', '--dir', repo, '--prune', '--drop', 'root-1')).code).toBe(2);
      expect((last = await cli('checkpoints', '--dir', path.join(repo, 'missing'))).code).toBe(2);
      expect(refsOf('root-1')).toHaveLength(1);
      expect(git(repo, 'rev-parse', 'main').trim()).toMatch(/^[0-9a-f]{40}$/);

      expect((last = await cli('checkpoints', '--dir', repo, '--drop', 'root-1.1', '--json')).code).toBe(0);
      const dropped = JSON.parse(`${last.out}${last.err}`) as { dropped: unknown; agents: { agentId: string }[] };
      expect(dropped.dropped).toEqual([{ agentId: 'root-1.1', count: 1 }]);
      expect(dropped.agents.map((agent) => agent.agentId)).toEqual(['root-2', 'root-1']);

      expect((last = await cli('checkpoints', '--dir', repo, '--prune', '--older-than', '10')).code).toBe(0);
      expect(`${last.out}${last.err}`).toContain(
        'Pruned 1 checkpoint(s) older than 10 day(s) of 1 agent(s): root-1 (1)',
      );
      expect(refsOf('root-1')).toEqual([]);
      expect(refsOf('root-2')).toHaveLength(1);

      expect((last = await cli('checkpoints', '--dir', repo, '--prune', '--older-than', '10')).code).toBe(0);
      expect(`${last.out}${last.err}`).toContain('Nothing to prune');
    });
  });
});
