import { describe, expect, it } from 'vitest';
import { createStructuredOutputActivities, maxOutputBytes } from '../../src/activities/structured-output';
import { schemaRunsRegexes } from '../../src/activities/structured-output-patterns';

// A model writes both the schema and the value: its regex must not stall the worker (docs/security.md).

/** Exponential backtracking: (a+)+$ against a run of a's that ends in something else. */
const catastrophic = '^(a+)+$';
/** Run in-process, this takes seconds (each extra 'a' doubles it); the thread is stopped long before. */
const hostile = `${'a'.repeat(30)}!`;

/** Runs `check` and says whether the event loop turned (a setImmediate callback ran) before it answered. */
async function withTick<T>(check: () => Promise<T>): Promise<{ result: T; ticked: boolean }> {
  let ticked = false;
  const immediate = setImmediate(() => {
    ticked = true;
  });
  const result = await check();
  const answeredTicked = ticked;
  clearImmediate(immediate);
  return { result, ticked: answeredTicked };
}

describe('validateStructuredOutput with model-written regexes', () => {
  const { validateStructuredOutput } = createStructuredOutputActivities({ patternTimeLimitMs: 200 });

  it('stops a catastrophic pattern and says so, without blocking the event loop', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', pattern: catastrophic } },
      required: ['name'],
    };
    const { result, ticked } = await withTick(() => validateStructuredOutput({ schema, value: { name: hostile } }));
    expect(result).toMatchObject({ ok: false, errors: expect.stringContaining("the schema's pattern took longer") });
    expect(result).toMatchObject({ errors: expect.stringContaining('simplify the pattern') });
    expect(ticked).toBe(true);
  });

  it('stops a catastrophic patternProperties key the same way', async () => {
    const schema = { type: 'object', patternProperties: { [catastrophic]: { type: 'string' } } };
    const { result, ticked } = await withTick(() => validateStructuredOutput({ schema, value: { [hostile]: 1 } }));
    expect(result).toMatchObject({ ok: false, errors: expect.stringContaining('took longer') });
    expect(ticked).toBe(true);
  });

  it('still validates ordinary patterns both ways, with the path of each error', async () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' } },
      patternProperties: { '^x-': { type: 'integer' } },
      required: ['id'],
    };
    expect(await validateStructuredOutput({ schema, value: { id: 'ABC-12', 'x-count': 3 } })).toEqual({ ok: true });
    const verdict = await validateStructuredOutput({ schema, value: { id: 'abc', 'x-count': 'three' } });
    expect(verdict).toMatchObject({ ok: false, errors: expect.stringContaining('output.id should match pattern') });
    expect(verdict).toMatchObject({ errors: expect.stringContaining("output['x-count'] should be integer") });
  });

  it('checks format "regex" in the thread too', async () => {
    const schema = { type: 'object', properties: { re: { type: 'string', format: 'regex' } } };
    expect(await validateStructuredOutput({ schema, value: { re: '^a+$' } })).toEqual({ ok: true });
    expect(await validateStructuredOutput({ schema, value: { re: '(' } })).toMatchObject({
      ok: false,
      errors: expect.stringContaining('should match format "regex"'),
    });
  });

  it('refuses an output past the size limit, with or without patterns', async () => {
    const big = { text: 'x'.repeat(maxOutputBytes) };
    for (const schema of [{ type: 'object' }, { type: 'object', properties: { text: { pattern: '^x*$' } } }]) {
      expect(await validateStructuredOutput({ schema, value: big })).toMatchObject({
        ok: false,
        errors: expect.stringContaining(`more than the limit of ${maxOutputBytes}`),
      });
    }
  });
});

describe('schemaRunsRegexes', () => {
  it('finds pattern, patternProperties and format "regex" anywhere in the schema', () => {
    expect(schemaRunsRegexes({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false);
    expect(schemaRunsRegexes({ type: 'object', properties: { a: { format: 'date-time' } } })).toBe(false);
    expect(schemaRunsRegexes({ type: 'object', definitions: { a: { items: [{ pattern: 'x' }] } } })).toBe(true);
    expect(schemaRunsRegexes({ type: 'object', propertyNames: { pattern: '^a' } })).toBe(true);
    expect(schemaRunsRegexes({ type: 'object', patternProperties: {} })).toBe(true);
    expect(schemaRunsRegexes({ type: 'object', properties: { a: { format: 'regex' } } })).toBe(true);
  });
});
