import { describe, expect, it } from 'vitest';
import { StructuredOutputRecord } from '../../src/workflows/tools/structured-output-record';
import { structuredOutputAttempts } from '../../src/shared/tools/structured-output';

describe('StructuredOutputRecord', () => {
  it('carries its attempts and last failure to the next run, which fails at the same total', () => {
    const first = new StructuredOutputRecord(undefined);
    expect(first.carry()).toEqual({});
    expect(first.countFailure('output.a should be string')).toBe(1);
    expect(first.countFailure()).toBe(2);
    // A turn ended in text keeps the last validation failure.
    expect(first.carry()).toEqual({ structuredOutput: { attempts: 2, lastFailure: 'output.a should be string' } });
    const next = new StructuredOutputRecord(first.carry());
    for (let attempt = 3; attempt < structuredOutputAttempts; attempt++) next.countFailure();
    expect(next.exhausted).toBe(false);
    next.countFailure('output.b should be integer');
    expect(next).toMatchObject({ exhausted: true, attempts: structuredOutputAttempts });
    expect(next.lastFailure).toBe('output.b should be integer');
  });

  it('is not exhausted once an answer was accepted', () => {
    const record = new StructuredOutputRecord({ structuredOutput: { attempts: structuredOutputAttempts - 1 } });
    record.accept({ ok: true });
    expect(record.accepted).toEqual({ value: { ok: true } });
    expect(record.exhausted).toBe(false);
  });
});
