import { describe, expect, it } from 'vitest';
import {
  describeInputError,
  forkSubagentSchema,
  resumeDescendantSchema,
  rewindInputSchema,
  turnConversationSchema,
  type InputSchema,
} from '../../../src/shared/protocol/input-schemas';
import { inputLimits } from '../../../src/shared/protocol/limits';

// Hostile inputs of the fork and rewind queries and updates (docs/rewind.md, Limits): refused at the boundary, never thrown.

const maxTurn = 1_000_000;
const badTurns: unknown[] = [
  -1,
  1.5,
  0.1,
  maxTurn + 1,
  1e21,
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '3',
  '',
  null,
  true,
  [3],
  { turn: 3 },
];
const longMessage = 'x'.repeat(inputLimits.maxMessageChars + 1);
const longId = 'a'.repeat(inputLimits.maxIdChars + 1);

/** Refused without throwing, with a one-line reason naming the field. */
function expectRefused<T>(schema: InputSchema<T>, value: unknown, field: string): void {
  const parsed = schema.safeParse(value);
  expect(parsed.success, JSON.stringify(value)?.slice(0, 80)).toBe(false);
  if (!parsed.success) expect(describeInputError(parsed.error)).toContain(field);
}

describe('turnConversationSchema', () => {
  it('takes a whole turn from 0 to 1,000,000', () => {
    for (const turn of [0, 1, 42, maxTurn]) expect(turnConversationSchema.parse({ turn })).toEqual({ turn });
  });

  it.each(badTurns)('refuses turn %s', (turn) => {
    expectRefused(turnConversationSchema, { turn }, 'turn');
  });

  it('refuses no input, no turn, and what is not an object', () => {
    for (const value of [undefined, null, {}, [], 'turn 3', 3])
      expect(turnConversationSchema.safeParse(value).success).toBe(false);
  });

  it('drops extra keys, an own `__proto__` key included, and pollutes nothing', () => {
    const hostile: unknown = JSON.parse('{"turn": 2, "runId": "other", "__proto__": {"polluted": true}}');
    const parsed = turnConversationSchema.parse(hostile);
    expect(parsed).toEqual({ turn: 2 });
    expect(Object.keys(parsed)).toEqual(['turn']);
    expect((parsed as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('rewindInputSchema', () => {
  it('takes a turn with optional files, prompt and by', () => {
    expect(rewindInputSchema.parse({ turn: 0 })).toEqual({ turn: 0 });
    expect(rewindInputSchema.parse({ turn: 3, files: true, prompt: 'Try B', by: 'user' })).toEqual({
      turn: 3,
      files: true,
      prompt: 'Try B',
      by: 'user',
    });
  });

  it.each(badTurns)('refuses turn %s', (turn) => {
    expectRefused(rewindInputSchema, { turn }, 'turn');
  });

  it('refuses an empty or blank prompt (omit it to continue as the agent did)', () => {
    for (const prompt of ['', ' ', '\n\t  \r\n', '\u00a0\u2003'])
      expectRefused(rewindInputSchema, { turn: 1, prompt }, 'prompt');
  });

  it('takes a prompt at the message limit and refuses one past it', () => {
    const atLimit = 'x'.repeat(inputLimits.maxMessageChars);
    expect(rewindInputSchema.parse({ turn: 1, prompt: atLimit }).prompt).toHaveLength(inputLimits.maxMessageChars);
    expectRefused(rewindInputSchema, { turn: 1, prompt: longMessage }, 'prompt');
  });

  it('refuses files that is not a boolean, a prompt that is not a string, and a by past the id limit', () => {
    expectRefused(rewindInputSchema, { turn: 1, files: 'yes' }, 'files');
    expectRefused(rewindInputSchema, { turn: 1, files: 1 }, 'files');
    expectRefused(rewindInputSchema, { turn: 1, prompt: ['a'] }, 'prompt');
    expectRefused(rewindInputSchema, { turn: 1, by: longId }, 'by');
    expectRefused(rewindInputSchema, { turn: 1, by: '' }, 'by');
  });

  it('drops extra keys rather than passing them on', () => {
    expect(rewindInputSchema.parse({ turn: 1, reset: true, messages: [], checkpoint: { commit: 'x' } })).toEqual({
      turn: 1,
    });
  });

  it('names every problem in one line', () => {
    const parsed = rewindInputSchema.safeParse({ turn: -2, prompt: ' ', files: 'no' });
    expect(parsed.success).toBe(false);
    if (!parsed.success) {
      const line = describeInputError(parsed.error);
      expect(line).not.toContain('\n');
      for (const field of ['turn', 'prompt', 'files']) expect(line).toContain(field);
    }
  });
});

describe('forkSubagentSchema', () => {
  const valid = { sourceAgentId: 'agent-1.2', turn: 3 };

  it('takes a source and a turn, with optional prompt, cwd, worktree and by', () => {
    expect(forkSubagentSchema.parse(valid)).toEqual(valid);
    const full = { ...valid, prompt: 'Try B', cwd: '/repo/other', worktree: true, by: 'user' };
    expect(forkSubagentSchema.parse(full)).toEqual(full);
  });

  it.each(badTurns)('refuses turn %s', (turn) => {
    expectRefused(forkSubagentSchema, { ...valid, turn }, 'turn');
  });

  it('refuses a missing, empty or over-long sourceAgentId, and one that is not a string', () => {
    expectRefused(forkSubagentSchema, { turn: 3 }, 'sourceAgentId');
    expectRefused(forkSubagentSchema, { ...valid, sourceAgentId: '' }, 'sourceAgentId');
    expectRefused(forkSubagentSchema, { ...valid, sourceAgentId: longId }, 'sourceAgentId');
    expectRefused(forkSubagentSchema, { ...valid, sourceAgentId: 7 }, 'sourceAgentId');
    expect(forkSubagentSchema.parse({ ...valid, sourceAgentId: 'a'.repeat(inputLimits.maxIdChars) })).toBeTruthy();
  });

  it('refuses an empty, blank or over-long prompt', () => {
    for (const prompt of ['', '   ', '\n']) expectRefused(forkSubagentSchema, { ...valid, prompt }, 'prompt');
    expectRefused(forkSubagentSchema, { ...valid, prompt: longMessage }, 'prompt');
  });

  it('refuses a cwd with NUL, an empty one and one past 4096 characters', () => {
    expectRefused(forkSubagentSchema, { ...valid, cwd: '/repo\0/etc' }, 'cwd');
    expectRefused(forkSubagentSchema, { ...valid, cwd: '\0' }, 'cwd');
    expectRefused(forkSubagentSchema, { ...valid, cwd: '' }, 'cwd');
    expectRefused(forkSubagentSchema, { ...valid, cwd: `/${'d'.repeat(4096)}` }, 'cwd');
    expect(forkSubagentSchema.parse({ ...valid, cwd: `/${'d'.repeat(4095)}` }).cwd).toHaveLength(4096);
  });

  it('refuses worktree that is not a boolean', () => {
    expectRefused(forkSubagentSchema, { ...valid, worktree: 'true' }, 'worktree');
  });

  it('drops extra keys (an agentId or placement chosen by the caller is not taken)', () => {
    expect(forkSubagentSchema.parse({ ...valid, agentId: 'agent-1.99', root: true, isolation: 'worktree' })).toEqual(
      valid,
    );
  });
});

describe('resumeDescendantSchema with rewind', () => {
  const valid = { agentId: 'agent-1.2', prompt: '' };

  it('takes an empty prompt with a rewind (continue from the boundary as the agent did)', () => {
    expect(resumeDescendantSchema.parse({ ...valid, rewind: { turn: 2 } })).toEqual({ ...valid, rewind: { turn: 2 } });
    expect(resumeDescendantSchema.parse({ ...valid, rewind: { turn: 0, files: true } }).rewind).toEqual({
      turn: 0,
      files: true,
    });
  });

  it('still refuses an empty or blank prompt without a rewind', () => {
    for (const prompt of ['', '  ', '\n\t']) expectRefused(resumeDescendantSchema, { ...valid, prompt }, 'prompt');
    expect(resumeDescendantSchema.parse({ ...valid, prompt: 'go on' }).prompt).toBe('go on');
  });

  it.each(badTurns)('refuses rewind turn %s', (turn) => {
    expectRefused(resumeDescendantSchema, { ...valid, rewind: { turn } }, 'rewind.turn');
  });

  it('refuses a rewind that is not an object, or without a turn, and files that is not a boolean', () => {
    for (const rewind of [null, 3, 'turn 3', [], {}])
      expectRefused(resumeDescendantSchema, { ...valid, rewind }, 'rewind');
    expectRefused(resumeDescendantSchema, { ...valid, rewind: { turn: 1, files: 'yes' } }, 'rewind.files');
  });

  it('refuses a prompt past the message limit, even with a rewind', () => {
    expectRefused(resumeDescendantSchema, { ...valid, prompt: longMessage, rewind: { turn: 1 } }, 'prompt');
  });

  it('refuses an over-long or empty agentId', () => {
    expectRefused(resumeDescendantSchema, { ...valid, agentId: longId, rewind: { turn: 1 } }, 'agentId');
    expectRefused(resumeDescendantSchema, { ...valid, agentId: '', rewind: { turn: 1 } }, 'agentId');
  });

  it('drops extra keys, also inside the rewind', () => {
    expect(
      resumeDescendantSchema.parse({ ...valid, rewind: { turn: 1, prompt: 'x', messages: [] }, extra: 1 }),
    ).toEqual({ ...valid, rewind: { turn: 1 } });
  });
});
