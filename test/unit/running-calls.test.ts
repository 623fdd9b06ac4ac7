import { describe, expect, it } from 'vitest';
import { RunningCalls } from '../../src/activities/tools/running-calls';

describe('RunningCalls', () => {
  it("aborts every running call of one agent and no other agent's", () => {
    const calls = new RunningCalls();
    const a1 = calls.track('agent-a', new AbortController().signal);
    const a2 = calls.track('agent-a', new AbortController().signal);
    const b1 = calls.track('agent-b', new AbortController().signal);
    expect(calls.abort('agent-a')).toBe(2);
    expect(a1.signal.aborted && a2.signal.aborted).toBe(true);
    expect(b1.signal.aborted).toBe(false);
    // Already aborted calls are not counted again; unknown agents have none.
    expect(calls.abort('agent-a')).toBe(0);
    expect(calls.abort('agent-c')).toBe(0);
  });

  it("follows Temporal's cancellation of the call, also when it came before tracking", () => {
    const calls = new RunningCalls();
    const temporal = new AbortController();
    const tracked = calls.track('agent-a', temporal.signal);
    temporal.abort(new Error('cancelled by Temporal'));
    expect(tracked.signal.aborted).toBe(true);
    const late = calls.track('agent-a', temporal.signal);
    expect(late.signal.aborted).toBe(true);
  });

  it('forgets a call once it is done', () => {
    const calls = new RunningCalls();
    const temporal = new AbortController();
    const tracked = calls.track('agent-a', temporal.signal);
    expect(calls.count('agent-a')).toBe(1);
    tracked.done();
    expect(calls.count('agent-a')).toBe(0);
    expect(calls.abort('agent-a')).toBe(0);
    expect(tracked.signal.aborted).toBe(false);
    // A cancellation after the call ended does not reach it any more.
    temporal.abort();
    expect(tracked.signal.aborted).toBe(false);
  });
});
