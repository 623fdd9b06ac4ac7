import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { valueFromSchema } from '../../src/model-server/schema-value';

// The project's ajv (6): draft 7 and its formats.
const ajv = new Ajv({ format: 'full', allErrors: true });

/** The generated value, after ajv (the validator the runtime uses) accepted it. */
function validValue(schema: Record<string, unknown>, suggestion?: unknown): unknown {
  const value = valueFromSchema(schema, suggestion);
  const validate = ajv.compile(schema);
  expect(validate(value), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return value;
}

const verdictSchema = {
  type: 'object',
  properties: {
    finding: { type: 'string' },
    verdict: { enum: ['confirmed', 'refuted'] },
    reason: { type: 'string' },
  },
  required: ['finding', 'verdict', 'reason'],
};

describe('valueFromSchema', () => {
  it('fills every required property of the review checker schema and takes suggestions that fit', () => {
    expect(validValue(verdictSchema)).toEqual({ finding: 'example', verdict: 'confirmed', reason: 'example' });
    expect(
      validValue(verdictSchema, { finding: 'src/a.ts has no test', verdict: 'refuted', reason: 'found one' }),
    ).toEqual({
      finding: 'src/a.ts has no test',
      verdict: 'refuted',
      reason: 'found one',
    });
  });

  it('replaces suggestions that do not fit: an enum value not listed, a wrong type, a key the schema forbids', () => {
    const schema = { ...verdictSchema, additionalProperties: false };
    expect(validValue(schema, { finding: 7, verdict: 'maybe', reason: 'r', extra: true })).toEqual({
      finding: 'example',
      verdict: 'confirmed',
      reason: 'r',
    });
  });

  it('builds nested objects, arrays of objects and tuples', () => {
    const schema = {
      type: 'object',
      required: ['summary', 'findings', 'pair'],
      properties: {
        summary: {
          type: 'object',
          required: ['count', 'ok'],
          properties: { count: { type: 'integer' }, ok: { type: 'boolean' } },
        },
        findings: {
          type: 'array',
          minItems: 2,
          items: {
            type: 'object',
            required: ['file', 'severity'],
            properties: { file: { type: 'string', minLength: 3 }, severity: { enum: ['low', 'high'] } },
          },
        },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 2, additionalItems: false },
        optional: { type: 'string' },
      },
    };
    const value = validValue(schema) as Record<string, unknown>;
    expect(value.findings).toHaveLength(2);
    expect(value).not.toHaveProperty('optional');
    // Draft 2020 tuples (ajv 6 predates them, so checked by value).
    expect(
      valueFromSchema({ type: 'array', prefixItems: [{ const: 'a' }, { type: 'integer' }], items: false }),
    ).toEqual(['a', 1]);
  });

  it('keeps array items distinct when uniqueItems asks for it', () => {
    for (const items of [{ type: 'string' }, { type: 'integer' }, { enum: ['a', 'b', 'c'] }, { type: 'boolean' }])
      validValue({ type: 'array', items, minItems: 2, uniqueItems: true });
  });

  it('meets string lengths, formats and simple patterns', () => {
    expect(validValue({ type: 'string', minLength: 12 })).toHaveLength(12);
    expect(validValue({ type: 'string', maxLength: 3 })).toBe('exa');
    for (const format of ['date-time', 'date', 'email', 'uri', 'uuid', 'ipv4', 'hostname'])
      validValue({ type: 'string', format });
    validValue({ type: 'string', pattern: '^[0-9]+$' });
    validValue({ type: 'string', pattern: '^[a-z]$' });
  });

  it('meets numeric bounds, exclusive bounds and multipleOf, in draft 7 and draft 4 spelling', () => {
    expect(validValue({ type: 'integer', minimum: 5 })).toBe(5);
    expect(validValue({ type: 'integer', minimum: -10, maximum: -3 })).toBe(-10);
    validValue({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 });
    validValue({ type: 'integer', exclusiveMinimum: 7 });
    validValue({ type: 'integer', multipleOf: 5, minimum: 12, maximum: 40 });
    validValue({ type: 'number', multipleOf: 0.5, minimum: 0.2 });
    const draft4 = { type: 'integer', minimum: 3, exclusiveMinimum: true, maximum: 9 };
    expect(valueFromSchema(draft4)).toBe(4);
  });

  it('follows $ref, allOf, anyOf, oneOf, const and type lists', () => {
    const schema = {
      $defs: {
        verdict: { enum: ['confirmed', 'refuted'] },
        base: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      },
      allOf: [
        { $ref: '#/$defs/base' },
        { required: ['verdict'], properties: { verdict: { $ref: '#/$defs/verdict' } } },
      ],
      type: 'object',
      required: ['kind', 'either', 'maybe'],
      properties: {
        kind: { const: 'review' },
        either: { anyOf: [{ type: 'string', minLength: 2 }, { type: 'number' }] },
        one: { oneOf: [{ type: 'boolean' }] },
        maybe: { type: ['null', 'string'] },
      },
    };
    expect(validValue(schema)).toEqual({
      id: 0,
      verdict: 'confirmed',
      kind: 'review',
      either: 'example',
      maybe: 'example',
    });
  });

  it('gives a small value for a recursive schema and null for an impossible one', () => {
    const tree = {
      $ref: '#/definitions/node',
      definitions: {
        node: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/definitions/node' } } },
        },
      },
    };
    expect(validValue(tree)).toEqual({ name: 'example' });
    expect(validValue(tree, { name: 'root', children: [{ name: 'leaf' }] })).toEqual({
      name: 'root',
      children: [{ name: 'leaf' }],
    });
    expect(valueFromSchema(false)).toBeNull();
    expect(valueFromSchema({ $ref: '#/nowhere' })).toBeNull();
  });

  it('answers the same object every time (no randomness)', () => {
    expect(JSON.stringify(valueFromSchema(verdictSchema))).toBe(JSON.stringify(valueFromSchema(verdictSchema)));
  });
});
