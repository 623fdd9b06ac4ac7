import { ApplicationFailure } from '@temporalio/common';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expiredCheckpoints, retentionFromEnv, type StoredCheckpoint } from '../../../src/checkpoints/retention';
import { ErrorType } from '../../../src/shared/protocol/errors';
import { checkpointRefPrefix, type TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';
import { createCheckpointFixture, expectRecorded, git, type CheckpointFixture } from './helpers';

const day = 24 * 60 * 60 * 1000;

function stored(turn: number, atMs: number): StoredCheckpoint {
  return { ref: `${checkpointRefPrefix}a/${String(turn).padStart(6, '0')}`, commit: 'c', turn, atMs };
}

describe('expiredCheckpoints', () => {
  const now = 100 * day;

  it('keeps the newest N, counting the one just recorded', () => {
    const refs = [1, 2, 3, 4].map((turn) => stored(turn, now - (5 - turn) * 1000));
    expect(expiredCheckpoints(refs, { keep: 3, maxAgeDays: 30 }, now, stored(5, now).ref).map((c) => c.turn)).toEqual([
      2, 1,
    ]);
    expect(expiredCheckpoints(refs, { keep: 1, maxAgeDays: 30 }, now, stored(5, now).ref)).toHaveLength(4);
  });

  it('drops what is older than maxAgeDays, never the one just recorded', () => {
    const refs = [stored(1, now - 40 * day), stored(2, now - 10 * day), stored(3, now - 40 * day)];
    expect(expiredCheckpoints(refs, { keep: 100, maxAgeDays: 30 }, now, stored(3, 0).ref).map((c) => c.turn)).toEqual([
      1,
    ]);
  });

  it('orders by date, then turn: turns re-recorded after a rewind are newer than the abandoned ones', () => {
    const refs = [stored(5, now - 9000), stored(6, now - 8000), stored(3, now - 1000), stored(4, now - 1000)];
    expect(expiredCheckpoints(refs, { keep: 3, maxAgeDays: 30 }, now, stored(7, now).ref).map((c) => c.turn)).toEqual([
      6, 5,
    ]);
  });
});

describe('retentionFromEnv', () => {
  it('reads positive whole numbers and defaults the rest', () => {
    expect(retentionFromEnv({})).toEqual({ keep: 100, maxAgeDays: 30 });
    expect(retentionFromEnv({ SUBAGENTS_CHECKPOINT_KEEP: '7', SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS: ' 2 ' })).toEqual({
      keep: 7,
      maxAgeDays: 2,
    });
    expect(retentionFromEnv({ SUBAGENTS_CHECKPOINT_KEEP: '' })).toEqual({ keep: 100, maxAgeDays: 30 });
  });

  it('refuses anything else, naming the variable', () => {
    for (const [name, value] of [
      ['SUBAGENTS_CHECKPOINT_KEEP', '0'],
      ['SUBAGENTS_CHECKPOINT_KEEP', '-3'],
      ['SUBAGENTS_CHECKPOINT_KEEP', 'ten'],
      ['SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS', '1.5'],
      ['SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS', '99999999999999999999'],
    ] as const) {
      let failure: unknown;
      try {
        retentionFromEnv({ [name]: value });
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect((failure as ApplicationFailure).type).toBe(ErrorType.InvalidCheckpointInput);
      expect((failure as ApplicationFailure).message).toContain(`${name} must be a positive whole number`);
      expect((failure as ApplicationFailure).message).toContain(JSON.stringify(value));
    }
  });
});

describe('retention on a real repository', () => {
  let fixture: CheckpointFixture;
  afterEach(() => fixture.cleanup());

  function turns(): string[] {
    return git(
      fixture.repository.repo,
      'for-each-ref',
      '--format=%(refname:lstrip=4)',
      `${checkpointRefPrefix}agent-1/`,
    )
      .split('\n')
      .filter((line) => line !== '');
  }

  async function recordTurns(count: number, stepMs: number, retention?: { keep: number; maxAgeDays: number }) {
    let previous: TurnCheckpoint | undefined;
    for (let turn = 0; turn < count; turn += 1) {
      await fixture.repository.write('counter.txt', `${turn}\n`);
      const result = await fixture.activities.checkpointWorkspace({
        agentId: 'agent-1',
        cwd: fixture.repository.repo,
        turn,
        ...(previous ? { previous } : {}),
        ...(retention ? { retention } : {}),
      });
      previous = expectRecorded(result);
      fixture.clock.ms += stepMs;
    }
  }

  describe('from the input', () => {
    beforeEach(async () => {
      fixture = await createCheckpointFixture();
    });

    it('keeps the newest `keep` checkpoints of the agent', async () => {
      await recordTurns(6, 1000, { keep: 3, maxAgeDays: 30 });
      expect(turns()).toEqual(['000003', '000004', '000005']);
    });

    it('drops checkpoints older than maxAgeDays', async () => {
      await recordTurns(4, day, { keep: 100, maxAgeDays: 2 });
      expect(turns()).toEqual(['000001', '000002', '000003']);
    });
  });

  describe('from the environment', () => {
    it('reads SUBAGENTS_CHECKPOINT_KEEP when the input has no retention', async () => {
      fixture = await createCheckpointFixture({ SUBAGENTS_CHECKPOINT_KEEP: '2' });
      await recordTurns(4, 1000);
      expect(turns()).toEqual(['000002', '000003']);
    });

    it('refuses an invalid setting before recording anything', async () => {
      fixture = await createCheckpointFixture({ SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS: 'forever' });
      const failure = await fixture.activities
        .checkpointWorkspace({ agentId: 'agent-1', cwd: fixture.repository.repo, turn: 0 })
        .then(
          () => undefined,
          (error: unknown) => error as ApplicationFailure,
        );
      expect(failure?.message).toContain('SUBAGENTS_CHECKPOINT_MAX_AGE_DAYS must be a positive whole number');
      expect(turns()).toEqual([]);
    });
  });

  describe('dropCheckpoints', () => {
    beforeEach(async () => {
      fixture = await createCheckpointFixture();
    });

    it('deletes every ref and private index of one agent, not of an agent whose id starts the same', async () => {
      const { repo } = fixture.repository;
      await recordTurns(3, 1000);
      await fixture.record(0, undefined, 'agent-1.1');
      const indexes = path.join(repo, '.git', 'subagents', 'checkpoint-index');
      expect(await fixture.activities.dropCheckpoints({ root: repo, agentId: 'agent-1' })).toBe(3);
      expect(turns()).toEqual([]);
      expect(await fs.readdir(indexes)).toEqual(['agent-1.1']);
      expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/subagents').trim()).toBe(
        `${checkpointRefPrefix}agent-1.1/000000`,
      );
      expect(await fixture.activities.dropCheckpoints({ root: repo, agentId: 'agent-1' })).toBe(0);
      expect(await fixture.activities.dropCheckpoints({ root: repo, agentId: 'never-ran' })).toBe(0);
    });
  });
});
