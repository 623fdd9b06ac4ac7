import { describe, expect, it } from 'vitest';
import { maxDurationMs, parseDuration } from '../../src/shared/protocol/duration';

describe('parseDuration', () => {
  it('reads a number and one unit; a bare number is milliseconds', () => {
    expect(parseDuration('30m')).toEqual({ ok: true, ms: 1_800_000 });
    expect(parseDuration('90s')).toEqual({ ok: true, ms: 90_000 });
    expect(parseDuration('2h')).toEqual({ ok: true, ms: 7_200_000 });
    expect(parseDuration('1d')).toEqual({ ok: true, ms: 86_400_000 });
    expect(parseDuration('250ms')).toEqual({ ok: true, ms: 250 });
    expect(parseDuration('1500')).toEqual({ ok: true, ms: 1500 });
    expect(parseDuration(' 1.5 h ')).toEqual({ ok: true, ms: 5_400_000 });
    expect(parseDuration(60_000)).toEqual({ ok: true, ms: 60_000 });
  });

  it('refuses negative, zero, non-finite, exotic and oversized values', () => {
    const hostile: unknown[] = [
      '-30m',
      '0',
      '0s',
      '0.0001s',
      'NaN',
      'Infinity',
      '1e309',
      '1e3',
      '0x10',
      '',
      ' ',
      '30 minutes',
      '1y',
      '2w',
      '30M',
      '1h30m',
      '9'.repeat(100_000),
      '367d',
      -1,
      0,
      0.4,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e309,
      maxDurationMs + 1,
      null,
      undefined,
      {},
      ['30m'],
      true,
    ];
    for (const value of hostile) {
      const parsed = parseDuration(value);
      expect(parsed.ok, String(value).slice(0, 20)).toBe(false);
      if (!parsed.ok) expect(parsed.error.length).toBeLessThan(300);
    }
    expect(parseDuration(maxDurationMs)).toEqual({ ok: true, ms: maxDurationMs });
  });
});
