import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputLimits } from '../../src/shared/limits';
import { conversationQuerySchema, stopNoticeSchema, type InputSchema } from '../../src/shared/input-schemas';

// The stop notice and the conversation query are taken without zod when plainly well-formed
// (src/shared/input-schemas.ts); the schemas written out here from the documented limits must agree
// with them on every input.
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

const conversationReference = z.object({ from: z.number().int().nonnegative() });

const conversationSamples: unknown[] = [
  { from: 0 },
  { from: 12 },
  { from: Number.MAX_SAFE_INTEGER },
  { from: 3, extra: 'dropped' },
  { from: -1 },
  { from: -0 },
  { from: 1.5 },
  { from: Number.MAX_SAFE_INTEGER + 1 },
  { from: Number.NaN },
  { from: Number.POSITIVE_INFINITY },
  { from: '3' },
  { from: null },
  {},
  [3],
  null,
  undefined,
  3,
];

function agreesWith<T>(schema: InputSchema<T>, referenceSchema: z.ZodType<T>, sample: unknown): void {
  const expected = referenceSchema.safeParse(sample);
  const actual = schema.safeParse(sample);
  expect(actual.success).toBe(expected.success);
  if (expected.success) {
    expect(actual.data).toEqual(expected.data);
    expect(schema.parse(sample)).toEqual(expected.data);
  } else {
    expect(() => schema.parse(sample)).toThrow();
    // The refusal still comes from the schema, with its message.
    expect(actual.error?.issues.length).toBeGreaterThan(0);
  }
}

const labelled = (list: unknown[]) => list.map((sample) => [JSON.stringify(sample)?.slice(0, 60) ?? String(sample), sample]);

describe('stopNoticeSchema', () => {
  it.each(labelled(samples))('agrees with the full schema on %s', (_label, sample) => agreesWith(stopNoticeSchema, reference, sample));
});

describe('conversationQuerySchema', () => {
  it.each(labelled(conversationSamples))('agrees with the full schema on %s', (_label, sample) => agreesWith(conversationQuerySchema, conversationReference, sample));
});
