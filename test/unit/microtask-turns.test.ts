import { describe, expect, it } from 'vitest';
import { afterMicrotaskTurns } from '../../src/workflows/runtime/microtask-turns';

/**
 * Records, in one microtask queue, when `afterMicrotaskTurns(turns)` fires against an async function
 * awaiting `Promise.resolve()` as often, started at the same moment, and against markers queued at
 * every turn: it must fire at the same turn as the awaits' continuation, right after it (it was
 * started after it), and before the markers each turn queues later.
 */
async function order(turns: number, startAwaitsFirst: boolean): Promise<string[]> {
  const events: string[] = [];
  const awaits = async () => {
    for (let turn = 0; turn < turns; turn++) await Promise.resolve();
    events.push('awaits');
  };
  const markers = async () => {
    for (let turn = 1; turn <= turns + 1; turn++) {
      await Promise.resolve();
      events.push(`turn ${turn}`);
    }
  };
  void markers();
  if (startAwaitsFirst) void awaits();
  afterMicrotaskTurns(turns, () => events.push('chain'));
  if (!startAwaitsFirst) void awaits();
  await new Promise((resolve) => setTimeout(resolve, 0));
  return events;
}

describe('afterMicrotaskTurns', () => {
  it('fires at the turn of as many awaits of a resolved promise, in the order it was started', async () => {
    for (const turns of [1, 2, 3, 5]) {
      const after = await order(turns, true);
      expect(after.indexOf('chain')).toBe(after.indexOf('awaits') + 1);
      expect(after.indexOf('chain')).toBe(after.indexOf(`turn ${turns}`) + 2);
      const before = await order(turns, false);
      expect(before.indexOf('awaits')).toBe(before.indexOf('chain') + 1);
      expect(before.indexOf('chain')).toBe(before.indexOf(`turn ${turns}`) + 1);
      expect(before.indexOf(`turn ${turns + 1}`)).toBe(before.length - 1);
    }
  });

  it('fires once, never synchronously', async () => {
    let calls = 0;
    afterMicrotaskTurns(3, () => calls++);
    expect(calls).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toBe(1);
  });
});
