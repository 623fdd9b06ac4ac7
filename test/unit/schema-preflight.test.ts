import { describe, expect, it } from 'vitest';
import { schemaPreflight } from '../../src/shared/scripts/schema-preflight';
import { scriptLimits } from '../../src/shared/scripts/script-run';

const refusalOf = (schema: unknown): string => {
  const refusal = schemaPreflight(schema);
  if (refusal === undefined) throw new Error(`expected a refusal of ${JSON.stringify(schema)}`);
  expect(refusal).toMatch(/^InvalidOutputSchema: /);
  return refusal;
};

describe('schemaPreflight', () => {
  it('accepts an ordinary object schema, nested objects, patterns and optional keys', () => {
    expect(
      schemaPreflight({
        type: 'object',
        properties: {
          verdict: { type: 'string', enum: ['pass', 'fail'] },
          details: { type: 'object', properties: { line: { type: 'integer' } }, required: ['line'] },
        },
        required: ['verdict', 'details'],
        additionalProperties: false,
      }),
    ).toBeUndefined();
    // A required key admitted by a pattern is no contradiction.
    expect(
      schemaPreflight({
        type: 'object',
        patternProperties: { '^x-': { type: 'string' } },
        required: ['x-id'],
        additionalProperties: false,
      }),
    ).toBeUndefined();
    // additionalProperties not false: any required key can be given.
    expect(schemaPreflight({ type: 'object', required: ['anything'] })).toBeUndefined();
  });

  it('refuses a root that is not an object schema', () => {
    expect(refusalOf({ type: 'array', items: { type: 'string' } })).toContain('root must be {type: "object"');
    expect(refusalOf({ properties: { a: { type: 'string' } } })).toContain('root must be');
    expect(refusalOf([{ type: 'object' }])).toContain('root must be');
    expect(refusalOf('object')).toContain('root must be');
    expect(refusalOf(null)).toContain('root must be');
    expect(refusalOf(undefined)).toContain('missing');
  });

  it('refuses a required key ruled out by additionalProperties: false', () => {
    const refusal = refusalOf({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name', 'age'],
      additionalProperties: false,
    });
    expect(refusal).toContain('requires "age"');
    expect(refusal).toContain('Add "age" to properties');
  });

  it('never runs a patternProperties regex (it could stall the workflow): a pattern may admit any key', () => {
    expect(
      schemaPreflight({
        type: 'object',
        patternProperties: { '^x-': {} },
        required: ['id'],
        additionalProperties: false,
      }),
    ).toBeUndefined();
    // Run on this key, the pattern would backtrack for seconds and not match.
    const hostile = {
      type: 'object',
      patternProperties: { '^(a+)+$': {} },
      required: [`${'a'.repeat(28)}!`],
      additionalProperties: false,
    };
    expect(schemaPreflight(hostile)).toBeUndefined();
  });

  it('refuses a required key whose schema is false', () => {
    expect(refusalOf({ type: 'object', properties: { gone: false }, required: ['gone'] })).toContain(
      'its schema for "gone" is false',
    );
  });

  it('finds the conflict in a required nested object and in allOf members, not in optional ones', () => {
    const nested = {
      type: 'object',
      properties: {
        inner: { type: 'object', properties: {}, required: ['x'], additionalProperties: false },
      },
      required: ['inner'],
    };
    expect(refusalOf(nested)).toContain(`property "inner"`);
    // Optional: an answer without "inner" matches, so the schema is not contradictory.
    expect(schemaPreflight({ ...nested, required: [] })).toBeUndefined();
    // Not necessarily an object ("inner" may be a string), so `required` need not apply.
    expect(
      schemaPreflight({
        ...nested,
        properties: { inner: { type: ['object', 'string'], required: ['x'], additionalProperties: false } },
      }),
    ).toBeUndefined();
    expect(
      refusalOf({
        type: 'object',
        allOf: [{ properties: { a: {} }, required: ['b'], additionalProperties: false }],
      }),
    ).toContain('allOf[0]');
  });

  it('refuses a schema larger than the options limit and one that is not JSON', () => {
    const big = { type: 'object', description: 'x'.repeat(scriptLimits.maxAgentOptionsBytes) };
    expect(refusalOf(big)).toContain(`limit of ${scriptLimits.maxAgentOptionsBytes}`);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(refusalOf(cyclic)).toContain('not JSON');
  });
});
