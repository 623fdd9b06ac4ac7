import { describe, expect, it } from 'vitest';
import { agentToolDefinitions } from '../../src/shared/tools/agent-tool-definitions';
import {
  childBudgetCaps,
  parseAgentToolInput,
  unknownAgentToolFields,
} from '../../src/workflows/tree/agent-tool-input';

const call = (budget: unknown) => parseAgentToolInput({ description: 'd', prompt: 'p', budget });

describe('the Agent call’s budget', () => {
  it('is a field of the tool (in its schema), not an unknown one', () => {
    expect(unknownAgentToolFields({ description: 'd', prompt: 'p', budget: {} })).toEqual([]);
    const schema = agentToolDefinitions.Agent.input_schema as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(schema.properties.budget?.properties ?? {})).toEqual([
      'max_tokens',
      'max_cost_usd',
      'max_tool_calls',
      'max_time_seconds',
    ]);
  });

  it('becomes caps: tokens, cost, tool calls, wall time in ms', () => {
    expect(call({ max_tokens: 20_000, max_cost_usd: 0.5, max_tool_calls: 30, max_time_seconds: 90 })).toMatchObject({
      ok: true,
      value: { budget: { tokens: 20_000, costUsd: 0.5, toolCalls: 30, wallTimeMs: 90_000 } },
    });
    const without = call(undefined);
    expect(without.ok && 'budget' in without.value).toBe(false);
    const empty = call({});
    expect(empty.ok && 'budget' in empty.value).toBe(false);
  });

  it('refuses hostile values with InvalidToolInput, naming each', () => {
    const refused = (budget: unknown, expected: string) => {
      const parsed = call(budget);
      expect(parsed.ok, JSON.stringify(budget)?.slice(0, 60)).toBe(false);
      if (!parsed.ok) {
        expect(parsed.error).toMatch(/^InvalidToolInput/);
        expect(parsed.error).toContain(expected);
        expect(parsed.error.length).toBeLessThan(600);
      }
    };
    refused({ max_tokens: -1 }, '"budget.max_tokens" must be a positive whole number');
    refused({ max_tokens: 0 }, '"budget.max_tokens"');
    refused({ max_tokens: 1.5 }, '"budget.max_tokens"');
    refused({ max_tokens: Number.NaN }, '"budget.max_tokens"');
    refused({ max_tokens: Number.POSITIVE_INFINITY }, '"budget.max_tokens"');
    refused({ max_tokens: 2 ** 60 }, '"budget.max_tokens"');
    refused({ max_tokens: '1e309' }, '"budget.max_tokens"');
    refused({ max_cost_usd: -0.01 }, '"budget.max_cost_usd" must be a positive number');
    refused({ max_tool_calls: '5' }, '"budget.max_tool_calls"');
    refused({ max_time_seconds: 1e12 }, '"budget.max_time_seconds" must be a positive number of at most');
    refused({ max_turns: 3 }, '"budget" has no field "max_turns"');
    refused({ ['x'.repeat(10_000)]: 1 }, '"budget" has no field');
    refused('lots', '"budget" must be an object');
    refused([1, 2], '"budget" must be an object');
    refused(7, '"budget" must be an object');
  });
});

describe('childBudgetCaps', () => {
  it('takes the lower of the type’s and the call’s caps, each kept where only one sets it', () => {
    expect(childBudgetCaps({ tokens: 40_000, toolCalls: 7 }, { tokens: 30_000, costUsd: 5 }, undefined)).toEqual({
      budgetCaps: { tokens: 30_000, toolCalls: 7, costUsd: 5 },
    });
    // A call cannot raise its type's cap.
    expect(childBudgetCaps({ tokens: 40_000 }, { tokens: 90_000 }, undefined)).toEqual({
      budgetCaps: { tokens: 40_000 },
    });
  });

  it('never gives a child more than its caller has', () => {
    expect(childBudgetCaps({ tokens: 40_000 }, { costUsd: 9 }, { tokens: 10_000, costUsd: 1 })).toEqual({
      budgetCaps: { tokens: 10_000, costUsd: 1 },
    });
    expect(childBudgetCaps(undefined, { tokens: 1_000_000 }, { tokens: 10_000 })).toEqual({
      budgetCaps: { tokens: 10_000 },
    });
  });

  it('gives nothing when neither the type nor the call sets a cap', () => {
    expect(childBudgetCaps(undefined, undefined, { tokens: 10_000 })).toEqual({});
  });
});
