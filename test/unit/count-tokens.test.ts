import { describe, expect, it } from 'vitest';
import { CountTokensSettingError, countsTokens, parseCountTokensSetting } from '../../src/shared/model/count-tokens';
import { expectResults, expectYesNo } from '../helpers/unit-cases';

describe('SUBAGENTS_COUNT_TOKENS', () => {
  it('is auto when unset or empty, and takes auto, always and never in any case', () => {
    expectResults(parseCountTokensSetting, [
      [[undefined], 'auto'],
      [['  '], 'auto'],
      [['always'], 'always'],
      [[' Never '], 'never'],
      [['AUTO'], 'auto'],
    ]);
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
    const real = ['https://api.anthropic.com', 'https://api.anthropic.com/'];
    const elsewhere = ['http://127.0.0.1:8788', 'https://api.anthropic.com.example.net', 'not a url'];
    expectYesNo((endpoint: string) => countsTokens('auto', endpoint), {
      yes: real.map((endpoint) => [endpoint]),
      no: elsewhere.map((endpoint) => [endpoint]),
    });
  });

  it('always and never hold whatever the endpoint', () => {
    expectYesNo(countsTokens, {
      yes: [['always', 'http://127.0.0.1:8788']],
      no: [['never', 'https://api.anthropic.com']],
    });
  });
});
