import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputLimits } from '../../src/shared/protocol/limits';
import {
  budgetChargeSchema,
  budgetGrantSchema,
  budgetReserveSchema,
  conversationQuerySchema,
  stopNoticeSchema,
  type InputSchema,
} from '../../src/shared/protocol/input-schemas';
import { tokenRefusal, usage } from '../helpers/unit-budget';

// The stop notice and the conversation query are taken without zod when plainly well-formed
// (src/shared/protocol/input-schemas.ts); the schemas written out here from the documented limits must agree
// with them on every input.
const reference = z.object({
  by: z.string().min(1).max(inputLimits.maxIdChars),
  reason: z.string().max(inputLimits.maxShortTextChars),
});

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

const labelled = (list: unknown[]) =>
  list.map((sample) => [JSON.stringify(sample)?.slice(0, 60) ?? String(sample), sample]);

describe('stopNoticeSchema', () => {
  it.each(labelled(samples))('agrees with the full schema on %s', (_label, sample) =>
    agreesWith(stopNoticeSchema, reference, sample),
  );
});

describe('conversationQuerySchema', () => {
  it.each(labelled(conversationSamples))('agrees with the full schema on %s', (_label, sample) =>
    agreesWith(conversationQuerySchema, conversationReference, sample),
  );
});

describe("the budget signals' lease fields (docs/budgets.md, Leases)", () => {
  const call = { agentId: 'a.1', model: 'm' };
  const request = { ...call, reservationId: 'a.1/r/1', inputTokens: 10, maxOutputTokens: 100, minOutputTokens: 10 };
  const charge = { ...call, reservationId: 'a.1/r/2', attempt: 1, usage: usage(1, 2), final: true };
  const refusal = { ...tokenRefusal('a.1/r/1', 'tight'), scopeAgentId: 'a' };

  it('keeps well-formed lease fields', () => {
    expect(
      budgetReserveSchema.parse({ requesterId: 'a.1', request: { ...request, leaseTokens: 800, topUp: 'a.1/r/0' } })
        .request,
    ).toMatchObject({ leaseTokens: 800, topUp: 'a.1/r/0' });
    expect(
      budgetChargeSchema.parse({ ...charge, leaseId: 'a.1/r/1', presumedInputTokens: 10, endsLease: true }),
    ).toMatchObject({ leaseId: 'a.1/r/1', presumedInputTokens: 10, endsLease: true });
    expect(
      budgetGrantSchema.parse({
        reservationId: 'a.1/r/1',
        granted: true,
        outputTokens: 100,
        reservedTokens: 800,
        leaseId: 'a.1/r/1',
      }),
    ).toMatchObject({ leaseId: 'a.1/r/1' });
    expect(budgetGrantSchema.parse({ ...refusal, revoked: true })).toMatchObject({ revoked: true });
  });

  it.each([
    ['a negative lease', { ...request, leaseTokens: -1 }],
    ['a fractional lease', { ...request, leaseTokens: 1.5 }],
    ['a lease as text', { ...request, leaseTokens: '800' }],
    ['an empty top-up id', { ...request, topUp: '' }],
    ['a top-up id past the id limit', { ...request, topUp: 'x'.repeat(inputLimits.maxIdChars + 1) }],
    ['a top-up id as an object', { ...request, topUp: { id: 'a' } }],
  ])('refuses a reservation with %s', (_label, bad) => {
    expect(budgetReserveSchema.safeParse({ requesterId: 'a.1', request: bad }).success).toBe(false);
  });

  it.each([
    ['a negative presumed input', { ...charge, attempt: 0, presumedInputTokens: -5 }],
    ['a presumed input as text', { ...charge, attempt: 0, presumedInputTokens: '5' }],
    ['a lease id as a number', { ...charge, leaseId: 7 }],
    ['an empty lease id', { ...charge, leaseId: '' }],
    ['endsLease as text', { ...charge, leaseId: 'a.1/r/1', endsLease: 'yes' }],
  ])('refuses a charge with %s', (_label, bad) => {
    expect(budgetChargeSchema.safeParse(bad).success).toBe(false);
  });

  it.each([
    [
      'a lease id as a number',
      { reservationId: 'a.1/r/1', granted: true, outputTokens: 1, reservedTokens: 1, leaseId: 7 },
    ],
    ['revoked as text', { ...refusal, revoked: 'true' }],
  ])('refuses a grant with %s', (_label, bad) => {
    expect(budgetGrantSchema.safeParse(bad).success).toBe(false);
  });
});
