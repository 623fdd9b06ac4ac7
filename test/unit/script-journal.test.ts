import { describe, expect, it } from 'vitest';
import { agentCallKey, canonicalJson, describeReplay, JournalReplay } from '../../src/shared/scripts/script-journal';
import type { ScriptJournalEntry, ScriptResumeSource } from '../../src/shared/scripts/script-run';

describe('agentCallKey', () => {
  it('ignores label and phase and the order of keys at every depth', () => {
    const key = agentCallKey('Review src', { model: 'haiku', schema: { type: 'object', required: ['a'] } });
    expect(
      agentCallKey('Review src', {
        label: 'src',
        schema: { required: ['a'], type: 'object' },
        phase: 'Review',
        model: 'haiku',
      }),
    ).toBe(key);
    expect(
      agentCallKey('Review src', { model: 'haiku', schema: { type: 'object', required: ['a'] }, label: 'x' }),
    ).toBe(key);
  });

  it('changes with the prompt or any option that decides the outcome', () => {
    const key = agentCallKey('Review src', { model: 'haiku' });
    expect(agentCallKey('Review src ', { model: 'haiku' })).not.toBe(key);
    expect(agentCallKey('Review src', { model: 'sonnet' })).not.toBe(key);
    expect(agentCallKey('Review src', { model: 'haiku', isolation: 'worktree' })).not.toBe(key);
    expect(agentCallKey('Review src', { model: 'haiku', agentType: 'Explore' })).not.toBe(key);
    expect(agentCallKey('Review src', {})).not.toBe(key);
    // Array order matters (a schema's enum, a list in a prompt's options).
    expect(agentCallKey('p', { schema: { enum: ['a', 'b'] } })).not.toBe(
      agentCallKey('p', { schema: { enum: ['b', 'a'] } }),
    );
  });

  it('does not confuse a prompt with an option that spells the same text', () => {
    expect(agentCallKey('a', { model: 'b' })).not.toBe(agentCallKey('a", "model": "b', {}));
  });

  it('treats an undefined option as left out, as the JSON the script sends does', () => {
    expect(agentCallKey('p', { model: undefined })).toBe(agentCallKey('p', {}));
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: null }] })).toBe('{"a":[1,{"c":null,"d":2}],"b":1}');
  });
});

function entry(index: number, prompt: string, status: ScriptJournalEntry['status'] = 'completed'): ScriptJournalEntry {
  return {
    index,
    key: agentCallKey(prompt, {}),
    agentId: `old.${index}`,
    status,
    ...(status === 'completed' ? { value: `answer ${index}` } : { error: 'it failed' }),
    tokens: 10,
  };
}

const source = (journal: ScriptJournalEntry[]): ScriptResumeSource => ({ runId: 'old', journal });

describe('JournalReplay', () => {
  it('reuses the unchanged prefix and never resumes reusing after the first changed call', () => {
    const replay = new JournalReplay(source([entry(1, 'a'), entry(2, 'b'), entry(3, 'c'), entry(4, 'd')]));
    expect(replay.take(1, agentCallKey('a', { label: 'shown' }))?.value).toBe('answer 1');
    expect(replay.take(2, agentCallKey('b', {}))?.agentId).toBe('old.2');
    expect(replay.take(3, agentCallKey('c changed', {}))).toBeUndefined();
    // Call 4 is unchanged, but it comes after a changed call: it runs live.
    expect(replay.take(4, agentCallKey('d', {}))).toBeUndefined();
    expect(replay.reused).toBe(2);
    expect(replay.stop).toEqual({ index: 3, reason: 'changed' });
    expect(describeReplay(replay)).toBe(
      'Reused 2 agent() calls of run old; call 3 changed (its prompt or options differ), so call 3 and every later call ran live.',
    );
  });

  it('does not reuse a failed or cancelled call, nor anything after it', () => {
    for (const status of ['failed', 'cancelled'] as const) {
      const replay = new JournalReplay(source([entry(1, 'a'), entry(2, 'b', status), entry(3, 'c')]));
      expect(replay.take(1, agentCallKey('a', {}))).toBeDefined();
      expect(replay.take(2, agentCallKey('b', {}))).toBeUndefined();
      expect(replay.take(3, agentCallKey('c', {}))).toBeUndefined();
      expect(replay.stop).toEqual({ index: 2, reason: 'not-completed', status });
      expect(describeReplay(replay)).toContain(
        status === 'failed' ? 'call 2 failed in run old' : 'call 2 was cancelled',
      );
    }
  });

  it('stops at a call the old run had not finished (a gap in its journal) and at the end of the journal', () => {
    const gap = new JournalReplay(source([entry(1, 'a'), entry(3, 'c')]));
    expect(gap.take(1, agentCallKey('a', {}))).toBeDefined();
    expect(gap.take(2, agentCallKey('b', {}))).toBeUndefined();
    expect(gap.take(3, agentCallKey('c', {}))).toBeUndefined();
    expect(gap.stop).toEqual({ index: 2, reason: 'not-in-journal' });
    expect(describeReplay(gap)).toContain('call 2 had not finished in run old');

    const end = new JournalReplay(source([entry(1, 'a')]));
    expect(end.take(1, agentCallKey('a', {}))).toBeDefined();
    expect(describeReplay(end)).toBe('Reused 1 agent() call of run old; every call so far matched.');
    expect(end.take(2, agentCallKey('b', {}))).toBeUndefined();
    expect(end.reused).toBe(1);
  });

  it('stops when calls do not come in order, even if a later one matches', () => {
    const replay = new JournalReplay(source([entry(1, 'a'), entry(2, 'b')]));
    expect(replay.take(2, agentCallKey('b', {}))).toBeUndefined();
    expect(replay.take(1, agentCallKey('a', {}))).toBeUndefined();
    expect(replay.stop).toEqual({ index: 2, reason: 'out-of-order', expected: 1 });
    expect(replay.reused).toBe(0);
  });

  it('reuses nothing without a source', () => {
    const replay = new JournalReplay();
    expect(replay.take(1, agentCallKey('a', {}))).toBeUndefined();
    expect(replay.fromRunId).toBeUndefined();
    expect(describeReplay(replay)).toBe('Not a resume: every agent() call runs live.');
  });
});
