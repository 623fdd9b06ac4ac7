import { describe, expect, it } from 'vitest';
import { CountTokensSettingError, countsTokens, parseCountTokensSetting } from '../../src/shared/model/count-tokens';

describe('SUBAGENTS_COUNT_TOKENS', () => {
  it('is auto when unset or empty, and takes auto, always and never in any case', () => {
    expect(parseCountTokensSetting(undefined)).toBe('auto');
    expect(parseCountTokensSetting('  ')).toBe('auto');
    expect(parseCountTokensSetting('always')).toBe('always');
    expect(parseCountTokensSetting(' Never ')).toBe('never');
    expect(parseCountTokensSetting('AUTO')).toBe('auto');
  });

  it('refuses any other value with a message naming the variable and the settings', () => {
    for (const value of ['yes', '1', 'on', 'alway']) {
      expect(() => parseCountTokensSetting(value)).toThrow(CountTokensSettingError);
      expect(() => parseCountTokensSetting(value)).toThrow(/SUBAGENTS_COUNT_TOKENS=.*"auto".*"always".*"never"/);
    }
  });
});

describe('countsTokens', () => {
  it('with auto counts only on the real API', () => {
    expect(countsTokens('auto', 'https://api.anthropic.com')).toBe(true);
    expect(countsTokens('auto', 'https://api.anthropic.com/')).toBe(true);
    expect(countsTokens('auto', 'http://127.0.0.1:8788')).toBe(false);
    expect(countsTokens('auto', 'https://api.anthropic.com.example.net')).toBe(false);
    expect(countsTokens('auto', 'not a url')).toBe(false);
  });

  it('always and never hold whatever the endpoint', () => {
    expect(countsTokens('always', 'http://127.0.0.1:8788')).toBe(true);
    expect(countsTokens('never', 'https://api.anthropic.com')).toBe(false);
  });
});
