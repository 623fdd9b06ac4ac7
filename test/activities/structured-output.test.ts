import { describe, expect, it } from 'vitest';
import { createStructuredOutputActivities } from '../../src/activities/structured-output';

const schema = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['pass', 'fail'] },
    score: { type: 'integer', minimum: 0, maximum: 10 },
    when: { type: 'string', format: 'date-time' },
  },
  required: ['verdict', 'score'],
  additionalProperties: false,
};

describe('validateStructuredOutput', () => {
  const { validateStructuredOutput } = createStructuredOutputActivities();

  it('accepts a valid object', async () => {
    expect(await validateStructuredOutput({ schema, value: { verdict: 'pass', score: 7 } })).toEqual({ ok: true });
  });

  it('lists every problem of an invalid object, with the path of each', async () => {
    const verdict = await validateStructuredOutput({
      schema,
      value: { verdict: 'maybe', score: 11, extra: true, when: 'yesterday' },
    });
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.errors).toContain('should be equal to one of the allowed values');
    expect(verdict.errors).toContain('output.score should be <= 10');
    expect(verdict.errors).toContain('should NOT have additional properties');
    expect(verdict.errors).toContain('should match format "date-time"');
  });

  it('does not coerce: a number sent as a string is invalid', async () => {
    const verdict = await validateStructuredOutput({ schema, value: { verdict: 'pass', score: '7' } });
    expect(verdict).toMatchObject({ ok: false, errors: expect.stringContaining('output.score should be integer') });
  });

  it('answers a schema it cannot use with the refusal instead of throwing', async () => {
    const verdict = await validateStructuredOutput({ schema: { type: 'array' }, value: [] });
    expect(verdict).toMatchObject({ ok: false, errors: expect.stringMatching(/^InvalidOutputSchema: /) });
  });

  it('keeps schemas of different agents that share an $id apart', async () => {
    const first = { $id: 'answer', type: 'object', required: ['a'] };
    const second = { $id: 'answer', type: 'object', required: ['b'] };
    expect(await validateStructuredOutput({ schema: first, value: { a: 1 } })).toEqual({ ok: true });
    expect(await validateStructuredOutput({ schema: second, value: { b: 1 } })).toEqual({ ok: true });
    expect((await validateStructuredOutput({ schema: second, value: { a: 1 } })).ok).toBe(false);
  });

  it('bounds the errors it lists', async () => {
    const many = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}`, { type: 'string' }])),
    };
    const value = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}`, index]));
    const verdict = await validateStructuredOutput({ schema: many, value });
    expect(verdict).toMatchObject({ ok: false, errors: expect.stringContaining('(and 20 more)') });
  });
});

describe('checkOutputSchema', () => {
  const { checkOutputSchema } = createStructuredOutputActivities({ cacheSize: 2 });

  it('accepts a valid schema', async () => {
    expect(await checkOutputSchema({ schema })).toEqual({ ok: true });
  });

  it("refuses what ajv's meta-schema refuses", async () => {
    const result = await checkOutputSchema({ schema: { type: 'object', properties: { a: { type: 'strnig' } } } });
    expect(result).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/^InvalidOutputSchema: .*not a valid JSON Schema/),
    });
    const required = await checkOutputSchema({ schema: { type: 'object', required: 'a' } });
    expect(required.ok).toBe(false);
  });

  it('refuses what cannot be compiled: unknown formats, unresolvable $ref, an unknown draft', async () => {
    for (const bad of [
      { type: 'object', properties: { a: { type: 'string', format: 'no-such-format' } } },
      { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } },
      { $schema: 'https://example.com/no-such-draft', type: 'object' },
    ]) {
      expect(await checkOutputSchema({ schema: bad })).toMatchObject({ ok: false, refusal: expect.any(String) });
    }
  });

  it("refuses schemaPreflight's contradictions too", async () => {
    const result = await checkOutputSchema({
      schema: { type: 'object', properties: {}, required: ['a'], additionalProperties: false },
    });
    expect(result).toMatchObject({ ok: false, refusal: expect.stringContaining('requires "a"') });
  });

  it('still answers after its small cache turned over', async () => {
    for (let index = 0; index < 5; index++) {
      expect(await checkOutputSchema({ schema: { type: 'object', required: [`k${index}`] } })).toEqual({ ok: true });
    }
    expect(await checkOutputSchema({ schema })).toEqual({ ok: true });
  });
});
