import { describe, expect, it } from 'vitest';
import { HookRecord } from '../../src/workflows/tools/hook-record';
import { hookIdentity } from '../../src/shared/policy/hook-handlers';

const setup = hookIdentity({ type: 'command', command: 'echo setup', once: true });
const check = hookIdentity({ type: 'prompt', prompt: 'Is it safe?', once: true });

describe('HookRecord: once handlers across runs', () => {
  it('carries the once handlers that ran, so the next run does not run them again', () => {
    const first = new HookRecord(undefined);
    expect(first.carry()).toEqual({});
    first.markRanOnce(setup);
    first.markRanOnce(setup);
    expect(first.ranOnce(setup)).toBe(true);
    expect(first.ranOnce(check)).toBe(false);
    expect(first.carry()).toEqual({ onceHooksRan: [setup] });
    // Through JSON, as continue-as-new carries it.
    const next = new HookRecord(JSON.parse(JSON.stringify(first.carry())) as ReturnType<HookRecord['carry']>);
    expect(next.ranOnce(setup)).toBe(true);
    next.markRanOnce(check);
    const third = new HookRecord(next.carry());
    expect([setup, check].map((identity) => third.ranOnce(identity))).toEqual([true, true]);
  });

  it('a new session (a resumed root) forgets them; its notices and counts stay', () => {
    const record = new HookRecord({ onceHooksRan: [setup, check], hookNotices: ['n'], stopHookContinuations: 2 });
    record.beginSession();
    expect(record.ranOnce(setup)).toBe(false);
    expect(record.carry()).toEqual({ hookNotices: ['n'], stopHookContinuations: 2 });
  });

  it('hostile carried identities (odd characters, many, long) are only compared, never run', () => {
    const hostile = ['', '\u0000', 'command\u0000rm -rf /', 'x'.repeat(100_000)];
    const record = new HookRecord({ onceHooksRan: hostile });
    for (const identity of hostile) expect(record.ranOnce(identity)).toBe(true);
    expect(record.ranOnce(setup)).toBe(false);
    expect(record.carry().onceHooksRan).toEqual(hostile);
  });
});
