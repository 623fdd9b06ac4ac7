import { describe, expect, it } from 'vitest';
import { costOfTokens, costOfUsage, priceOf } from '../../src/shared/model/model-prices';
import { modelAliases } from '../../src/shared/agents/models';

const usage = (fields: Partial<Parameters<typeof costOfUsage>[1]>) => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
  ...fields,
});

// Every API model id in src/shared/model/context-windows.ts and src/model-server/models.ts, with the dated ids.
const runtimeModels = [
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-sonnet-4-0',
  'claude-sonnet-4-5',
  'claude-sonnet-4-5-20250929',
  'claude-sonnet-4-6',
  'claude-sonnet-5',
  'claude-opus-4-0',
  'claude-opus-4-1',
  'claude-opus-4-5',
  'claude-opus-4-5-20251101',
  'claude-opus-4-6',
  'claude-opus-4-7',
  'claude-opus-4-8',
  'claude-opus-5',
  'claude-fable-5',
  'claude-fable-5-1',
  'claude-mythos-5',
  'claude-mythos-5-1',
  'claude-mythos-preview',
];

describe('priceOf', () => {
  it('knows every model the runtime knows, its aliases and dated ids', () => {
    for (const model of [...runtimeModels, ...Object.keys(modelAliases)])
      expect(priceOf(model).known, model).toBe(true);
    expect(priceOf('opus')).toMatchObject({
      input: 5,
      output: 25,
      cacheWrite5m: 6.25,
      cacheWrite1h: 10,
      cacheRead: 0.5,
    });
    expect(priceOf('sonnet')).toMatchObject({ input: 2, output: 10, cacheRead: 0.2 });
    expect(priceOf('haiku')).toEqual(priceOf('claude-haiku-4-5-20251001'));
    expect(priceOf('claude-sonnet-4-5-20250929')).toMatchObject({
      input: 3,
      output: 15,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      cacheRead: 0.3,
    });
    expect(priceOf('claude-opus-4-20250514')).toMatchObject({ input: 15, output: 75, known: true });
    expect(priceOf('claude-opus-4-1-20250805')).toMatchObject({ input: 15, output: 75, known: true });
  });

  it('writes cost 1.25 × and 2 × input; reads 0.1 × input, 0.025 × on the 5.1 models (as the page lists)', () => {
    for (const model of runtimeModels) {
      const price = priceOf(model);
      expect(price.cacheWrite5m, model).toBeCloseTo(price.input * 1.25, 10);
      expect(price.cacheWrite1h, model).toBeCloseTo(price.input * 2, 10);
      expect(price.cacheRead, model).toBeCloseTo(price.input * (model.endsWith('-5-1') ? 0.025 : 0.1), 10);
    }
  });

  it('prices an unknown model as the dearest family, never below any known one, and says so', () => {
    for (const model of ['claude-sonnet-5-5', 'claude-test-tiny', 'claude-sonnet-4-6-extra', 'gpt-5']) {
      const price = priceOf(model);
      expect(price.known, model).toBe(false);
      for (const known of runtimeModels) {
        const knownPrice = priceOf(known);
        for (const field of ['input', 'output', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead'] as const) {
          expect(price[field], `${model} ${field} vs ${known}`).toBeGreaterThanOrEqual(knownPrice[field]);
        }
      }
    }
    expect(priceOf('claude-test-tiny')).toMatchObject({ input: 25, output: 125, known: false });
  });
});

describe('costOfUsage', () => {
  it('prices each kind of token at its own rate', () => {
    // Sonnet 4.5: 1000 × $3 + 500 × $15 + 2000 × $3.75 + 10000 × $0.30 = $21,000 per million = $0.021.
    expect(
      costOfUsage(
        'claude-sonnet-4-5',
        usage({ inputTokens: 1000, outputTokens: 500, cacheCreationInputTokens: 2000, cacheReadInputTokens: 10_000 }),
      ),
    ).toBeCloseTo(0.021, 12);
    // Haiku 4.5: a million in ($1) and a million out ($5).
    expect(costOfUsage('haiku', usage({ inputTokens: 1_000_000, outputTokens: 1_000_000 }))).toBeCloseTo(6, 12);
    // A million cache reads: $0.25 on Fable 5.1, $1 on Fable 5.
    expect(costOfUsage('claude-fable-5-1', usage({ cacheReadInputTokens: 1_000_000 }))).toBeCloseTo(0.25, 12);
    expect(costOfUsage('claude-fable-5', usage({ cacheReadInputTokens: 1_000_000 }))).toBeCloseTo(1, 12);
    // Unknown: 1000 × $25 + 100 × $125 = $0.0375.
    expect(costOfUsage('claude-test-tiny', usage({ inputTokens: 1000, outputTokens: 100 }))).toBeCloseTo(0.0375, 12);
  });

  it('prices cache writes at the 5-minute rate unless the usage gives its 1-hour part', () => {
    const written = usage({
      inputTokens: 1000,
      outputTokens: 500,
      cacheCreationInputTokens: 2000,
      cacheReadInputTokens: 10_000,
    });
    // 1200 × $3.75 + 800 × $6 instead of 2000 × $3.75: $0.021 + 800 × ($6 − $3.75) / 1e6 = $0.0228.
    expect(costOfUsage('claude-sonnet-4-5', { ...written, cacheCreation1hInputTokens: 800 })).toBeCloseTo(0.0228, 12);
    // All 2000 at the 1-hour rate, however many the usage claims: $0.021 + 2000 × $2.25 / 1e6.
    expect(costOfUsage('claude-sonnet-4-5', { ...written, cacheCreation1hInputTokens: 5000 })).toBeCloseTo(0.0255, 12);
  });
});

describe('costOfTokens', () => {
  it('estimates uncached input and output', () => {
    // Opus 5: 20000 × $5 + 4000 × $25 = $0.2.
    expect(costOfTokens('opus', { input: 20_000, output: 4000 })).toBeCloseTo(0.2, 12);
    expect(costOfTokens('claude-sonnet-5', { input: 1_000_000, output: 0 })).toBeCloseTo(2, 12);
  });
});
