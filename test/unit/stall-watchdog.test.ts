import { describe, expect, it } from 'vitest';
import { stallDecision, stallText, type StallFacts } from '../../src/workflows/stall-watchdog';

const facts = (overrides: Partial<StallFacts> = {}): StallFacts => ({
  nowMs: 10_000, lastChangeMs: 0, timeoutMs: 5_000, state: 'calling_model', currentTools: [], pendingApprovals: 0, ...overrides,
});

describe('stallDecision', () => {
  it('finds a stall once the last change is at least the timeout old', () => {
    expect(stallDecision(facts())).toEqual({ kind: 'stalled', afterMs: 10_000 });
    expect(stallDecision(facts({ lastChangeMs: 5_000 }))).toEqual({ kind: 'stalled', afterMs: 5_000 });
    expect(stallDecision(facts({ lastChangeMs: 7_000 }))).toEqual({ kind: 'not_yet', remainingMs: 2_000 });
  });

  it('never calls waiting a stall: for input, for a person, or for foreground subagents only', () => {
    expect(stallDecision(facts({ state: 'waiting' }))).toEqual({ kind: 'exempt' });
    expect(stallDecision(facts({ state: 'finished' }))).toEqual({ kind: 'exempt' });
    expect(stallDecision(facts({ state: 'running_tools', currentTools: ['Bash'], pendingApprovals: 1 }))).toEqual({ kind: 'exempt' });
    expect(stallDecision(facts({ state: 'running_tools', currentTools: ['Agent', 'Agent'] }))).toEqual({ kind: 'exempt' });
    expect(stallDecision(facts({ state: 'running_tools', currentTools: ['Agent', 'Bash'] })).kind).toBe('stalled');
  });

  it('says what the parent should know', () => {
    const text = stallText('agent-1.1', { sinceMs: 0, afterMs: 61_400, state: 'running_tools', activity: 'running Bash', action: 'report' });
    expect(text).toBe('Agent agent-1.1 has made no progress for 61s (running_tools: running Bash). It is still running; stop it or send it a message if it should not wait.');
  });
});
