import { describe, expect, it } from 'vitest';
import { outputAmount, outputMoved, stepOutputOf } from '../../src/shared/protocol/step-output';
import { stallDecision, stallText, type StallFacts } from '../../src/workflows/loop/stall-watchdog';

const facts = (overrides: Partial<StallFacts> = {}): StallFacts => ({
  nowMs: 10_000,
  lastChangeMs: 0,
  timeoutMs: 5_000,
  state: 'calling_model',
  currentTools: [],
  pendingApprovals: 0,
  ...overrides,
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
    expect(stallDecision(facts({ state: 'running_tools', currentTools: ['Bash'], pendingApprovals: 1 }))).toEqual({
      kind: 'exempt',
    });
    expect(stallDecision(facts({ state: 'running_tools', currentTools: ['Agent', 'Agent'] }))).toEqual({
      kind: 'exempt',
    });
    expect(stallDecision(facts({ state: 'running_tools', currentTools: ['Agent', 'Bash'] })).kind).toBe('stalled');
  });

  it('asks a step idle past the timeout for its output before calling it stalled, when the run may', () => {
    expect(stallDecision(facts({ readsOutput: true }))).toEqual({ kind: 'read_output' });
    expect(stallDecision(facts({ readsOutput: true, state: 'running_tools', currentTools: ['Bash'] }))).toEqual({
      kind: 'read_output',
    });
    // Not a step: nothing streams or prints, so nothing to ask.
    expect(stallDecision(facts({ readsOutput: true, state: 'starting' }))).toEqual({
      kind: 'stalled',
      afterMs: 10_000,
    });
    // Not idle long enough, waiting, or a run recorded before the change: as before.
    expect(stallDecision(facts({ readsOutput: true, lastChangeMs: 7_000 }))).toEqual({
      kind: 'not_yet',
      remainingMs: 2_000,
    });
    expect(stallDecision(facts({ readsOutput: true, state: 'waiting' }))).toEqual({ kind: 'exempt' });
    expect(stallDecision(facts({ readsOutput: false }))).toEqual({ kind: 'stalled', afterMs: 10_000 });
  });

  it('calls a step whose output grew since the last look producing, and one whose output stood still stalled', () => {
    const streaming = { before: { '5': 12 }, now: { '5': 19 } };
    expect(stallDecision(facts({ readsOutput: true, output: streaming }))).toEqual({ kind: 'producing' });
    expect(stallDecision(facts({ readsOutput: true, output: { before: { '5': 19 }, now: { '5': 19 } } }))).toEqual({
      kind: 'stalled',
      afterMs: 10_000,
    });
    // A command that printed nothing since it started (sleep), and a step with no measured output at all (an MCP tool).
    expect(
      stallDecision(facts({ state: 'running_tools', currentTools: ['Bash'], output: { before: {}, now: { '9': 0 } } })),
    ).toEqual({ kind: 'stalled', afterMs: 10_000 });
    expect(
      stallDecision(
        facts({ state: 'running_tools', currentTools: ['mcp__db__query'], output: { before: {}, now: {} } }),
      ),
    ).toEqual({ kind: 'stalled', afterMs: 10_000 });
    // Output is no excuse while idle for less than the timeout, nor outside a step.
    expect(stallDecision(facts({ lastChangeMs: 9_000, output: streaming }))).toEqual({
      kind: 'not_yet',
      remainingMs: 4_000,
    });
    expect(stallDecision(facts({ state: 'starting', output: streaming }))).toEqual({
      kind: 'stalled',
      afterMs: 10_000,
    });
  });

  it('says what the parent should know', () => {
    const text = stallText('agent-1.1', {
      sinceMs: 0,
      afterMs: 61_400,
      state: 'running_tools',
      activity: 'running Bash',
      action: 'report',
    });
    expect(text).toBe(
      'Agent agent-1.1 has made no progress for 61s (running_tools: running Bash). It is still running; stop it or send it a message if it should not wait.',
    );
  });
});

describe('step output', () => {
  it('counts a model stream by its events, Bash by its output, Glob and Grep by files listed; never by heartbeat time', () => {
    expect(outputAmount({ kind: 'model', turn: 2, text: 'abc', textChars: 3, events: 7 })).toBe(7);
    expect(outputAmount({ kind: 'tool', tool: 'Bash', outputChars: 40, lines: ['x'] })).toBe(40);
    expect(outputAmount({ kind: 'tool', tool: 'Grep', filesListed: 3 })).toBe(3);
    expect(outputAmount({ kind: 'tool', tool: 'WebFetch' })).toBeUndefined();
    expect(
      stepOutputOf([
        { activityId: '4', details: { kind: 'model', turn: 1, text: '', textChars: 0, events: 2 } },
        { activityId: '6', details: { kind: 'tool', tool: 'Bash', outputChars: 0 } },
        { activityId: '7' },
        { activityId: '8', details: { kind: 'tool', tool: 'Write' } },
      ]),
    ).toEqual({ '4': 2, '6': 0 });
  });

  it('moves when any running activity has new output, or output it had none of at the last look', () => {
    expect(outputMoved({ '4': 2 }, { '4': 2 })).toBe(false);
    expect(outputMoved({}, { '6': 0 })).toBe(false);
    expect(outputMoved({ '4': 2 }, { '4': 2, '6': 1 })).toBe(true);
    expect(outputMoved({}, { '4': 3 })).toBe(true);
    // A new attempt starts again from nothing: its stream moved.
    expect(outputMoved({ '4': 9 }, { '4': 1 })).toBe(true);
    // Activities that ended since are not output now; names from the object prototype are just ids.
    expect(outputMoved({ '4': 9, '5': 1 }, { '5': 1 })).toBe(false);
    expect(outputMoved({}, { constructor: 0 })).toBe(false);
  });
});
