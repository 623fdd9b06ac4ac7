import { describe, expect, it } from 'vitest';
import { parseDefinitionFile } from '../../../src/project/agent-definitions/parse-definition';
import { definitionFile } from './helpers';

const file = '/project/.claude/agents/agent.md';

function parse(extra: string) {
  return parseDefinitionFile(definitionFile(`name: capped\ndescription: Has caps\n${extra}`), file, 'project');
}

function skippedBecause(extra: string): string {
  const result = parse(extra);
  expect(result.definition, extra).toBeUndefined();
  expect(result.reports[0]?.level, extra).toBe('skipped');
  return result.reports[0]!.message;
}

describe('front matter: the caps of an agent type (maxTokens, maxCostUsd, maxToolCalls, maxTime)', () => {
  it('reads each into the definition’s budget, maxTime as a duration or ms, with no warning', () => {
    const result = parse('maxTokens: 50000\nmaxCostUsd: 2.5\nmaxToolCalls: 40\nmaxTime: 30m\nmaxTurns: 12');
    expect(result.reports).toEqual([]);
    expect(result.definition).toMatchObject({
      maxTurns: 12,
      budget: { tokens: 50_000, costUsd: 2.5, toolCalls: 40, wallTimeMs: 1_800_000 },
    });
    expect(parse('maxTime: 90s').definition?.budget).toEqual({ wallTimeMs: 90_000 });
    expect(parse('maxTime: 2h').definition?.budget).toEqual({ wallTimeMs: 7_200_000 });
    expect(parse('maxTime: 1500').definition?.budget).toEqual({ wallTimeMs: 1500 });
    expect(parse('maxTime: "1.5h"').definition?.budget).toEqual({ wallTimeMs: 5_400_000 });
  });

  it('leaves the budget out when no cap is set, and treats an empty field as absent', () => {
    expect(parse('maxTurns: 3').definition).not.toHaveProperty('budget');
    expect(parse('maxTokens:').definition).not.toHaveProperty('budget');
  });

  it('skips a file whose cap is not a positive number, naming the field', () => {
    expect(skippedBecause('maxTokens: -5')).toContain('field "maxTokens" must be a positive whole number');
    expect(skippedBecause('maxTokens: 0')).toContain('field "maxTokens"');
    expect(skippedBecause('maxTokens: 1.5')).toContain('field "maxTokens"');
    expect(skippedBecause('maxTokens: 1e309')).toContain('field "maxTokens"');
    expect(skippedBecause('maxTokens: .nan')).toContain('field "maxTokens"');
    expect(skippedBecause('maxTokens: 9007199254740993')).toContain('field "maxTokens"');
    expect(skippedBecause('maxTokens: "50000"')).toContain('field "maxTokens"');
    expect(skippedBecause('maxCostUsd: -1')).toContain('field "maxCostUsd" must be a positive number of US dollars');
    expect(skippedBecause('maxCostUsd: .inf')).toContain('field "maxCostUsd"');
    expect(skippedBecause('maxCostUsd: 1e309')).toContain('field "maxCostUsd"');
    expect(skippedBecause('maxToolCalls: [1, 2]')).toContain('field "maxToolCalls"');
  });

  it('skips a file whose maxTime is not a duration, naming the accepted forms', () => {
    for (const bad of [
      '-30m',
      '30 minutes',
      '1y',
      '2 weeks',
      '0s',
      '1e309',
      'NaN',
      '""',
      '9999999d',
      `"${'9'.repeat(5000)}"`,
      '{ a: 1 }',
      'true',
    ]) {
      const message = skippedBecause(`maxTime: ${bad}`);
      expect(message, bad).toContain('field "maxTime"');
      expect(message.length, bad).toBeLessThan(400);
    }
    expect(skippedBecause('maxTime: 30 minutes')).toContain('e.g. 90s, 30m, 2h or 1d');
  });

  it('names every bad cap at once', () => {
    const message = skippedBecause('maxTokens: lots\nmaxToolCalls: -1\nmaxTime: forever');
    expect(message).toContain('"maxTokens"');
    expect(message).toContain('"maxToolCalls"');
    expect(message).toContain('"maxTime"');
  });
});
