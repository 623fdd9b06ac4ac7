import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputLimits } from '../../src/shared/limits';
import { stopNoticeSchema } from '../../src/shared/input-schemas';

// The stop notice is taken without zod when it is plainly well-formed (src/shared/input-schemas.ts); the
// schema written out here from the documented limits must agree with it on every input.
const reference = z.object({ by: z.string().min(1).max(inputLimits.maxIdChars), reason: z.string().max(inputLimits.maxShortTextChars) });

const samples: unknown[] = [
  { by: 'ops', reason: 'done' },
  { by: 'ops', reason: '' },
  { by: 'x'.repeat(inputLimits.maxIdChars), reason: 'y'.repeat(inputLimits.maxShortTextChars) },
  { by: 'ops', reason: 'done', extra: 'dropped', nested: { a: 1 } },
  { by: '', reason: 'empty by' },
  { by: 'x'.repeat(inputLimits.maxIdChars + 1), reason: 'by too long' },
  { by: 'ops', reason: 'y'.repeat(inputLimits.maxShortTextChars + 1) },
  { by: 'ops' },
  { reason: 'no by' },
  { by: 7, reason: 'number' },
  { by: 'ops', reason: null },
  { by: ['ops'], reason: 'array' },
  [],
  ['ops', 'done'],
  null,
  undefined,
  'ops',
  42,
  true,
];

describe('stopNoticeSchema', () => {
  it.each(samples.map((sample) => [JSON.stringify(sample)?.slice(0, 60) ?? 'undefined', sample]))('agrees with the full schema on %s', (_label, sample) => {
    const expected = reference.safeParse(sample);
    const actual = stopNoticeSchema.safeParse(sample);
    expect(actual.success).toBe(expected.success);
    if (expected.success) {
      expect(actual.data).toEqual(expected.data);
      expect(stopNoticeSchema.parse(sample)).toEqual(expected.data);
    } else {
      expect(() => stopNoticeSchema.parse(sample)).toThrow();
      // The refusal still comes from the schema, with its message.
      expect(actual.error?.issues.length).toBeGreaterThan(0);
    }
  });
});
