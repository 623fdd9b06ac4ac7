import { describe, expect, it } from 'vitest';
import { SharedPrefixGate } from '../../src/activities/shared-prefix-gate';

describe('SharedPrefixGate', () => {
  it('lets the first request of a prefix go at once and holds the others until its response begins', async () => {
    const gate = new SharedPrefixGate(60_000);
    const order: string[] = [];
    const started = await gate.enter('k');
    order.push('first sent');
    const second = gate.enter('k').then(() => order.push('second sent'));
    const other = gate.enter('other').then(() => order.push('other prefix sent'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['first sent', 'other prefix sent']);
    started();
    await second;
    await other;
    expect(order).toEqual(['first sent', 'other prefix sent', 'second sent']);
    started(); // a second call is harmless
  });

  it('never holds a request longer than its cap, nor past its cancellation', async () => {
    const capped = new SharedPrefixGate(30);
    await capped.enter('k');
    const waited = await Promise.race([
      capped.enter('k').then(() => 'went'),
      new Promise((resolve) => setTimeout(() => resolve('stuck'), 5_000)),
    ]);
    expect(waited).toBe('went');
    const gate = new SharedPrefixGate(60_000);
    await gate.enter('k');
    const abort = new AbortController();
    const waiting = gate.enter('k', abort.signal).then(() => 'went');
    abort.abort();
    expect(await waiting).toBe('went');
  });

  it('forgets a prefix once its response began: a later request writes or reads on its own', async () => {
    const gate = new SharedPrefixGate(60_000);
    const started = await gate.enter('k');
    expect(gate.pending).toBe(1);
    started();
    expect(gate.pending).toBe(0);
    expect(SharedPrefixGate.keyOf({ a: 1 })).toBe(SharedPrefixGate.keyOf({ a: 1 }));
    expect(SharedPrefixGate.keyOf({ a: 1 })).not.toBe(SharedPrefixGate.keyOf({ a: 2 }));
  });
});
