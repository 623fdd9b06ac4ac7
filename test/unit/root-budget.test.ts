import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { budgetLimitsProblem, rootAgentInput } from '../../src/client/root-input';

function project(definitions: Record<string, string> = {}): string {
  const cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-root-budget-')));
  mkdirSync(path.join(cwd, '.claude', 'agents'), { recursive: true });
  for (const [name, frontMatter] of Object.entries(definitions))
    writeFileSync(
      path.join(cwd, '.claude', 'agents', `${name}.md`),
      `---\nname: ${name}\ndescription: d\n${frontMatter}\n---\nDo it.\n`,
    );
  return cwd;
}

describe('limits.budget from the library', () => {
  it('takes caps that are positive numbers, whole where they count, and stop or finish', () => {
    expect(budgetLimitsProblem({})).toBeUndefined();
    expect(
      budgetLimitsProblem({
        budget: {
          caps: { tokens: 5000, costUsd: 0.5, toolCalls: 3, turns: 9, wallTimeMs: 60_000, concurrentAgents: 2 },
          action: 'finish',
        },
      }),
    ).toBeUndefined();
    expect(budgetLimitsProblem({ budget: { caps: {} } })).toBeUndefined();
  });

  it('refuses hostile budgets with a sentence', () => {
    const cases: [unknown, RegExp][] = [
      [{ caps: { tokens: -1 } }, /budget cap tokens must be a positive number/],
      [{ caps: { tokens: Number.NaN } }, /tokens must be a positive number/],
      [{ caps: { costUsd: Number.POSITIVE_INFINITY } }, /costUsd must be a positive number/],
      [{ caps: { toolCalls: 2.5 } }, /toolCalls must be a whole number/],
      [{ caps: { tokens: '5000' } }, /tokens must be a positive number/],
      [{ caps: { tokenz: 5 } }, /unknown budget cap "tokenz"/],
      [{ caps: { tokens: 5 }, action: 'later' }, /action must be "stop" or "finish" or "ask"/],
      [{ caps: null }, /limits.budget must be \{ caps/],
      [{ caps: [1] }, /limits.budget must be \{ caps/],
      ['lots', /limits.budget must be \{ caps/],
    ];
    for (const [budget, expected] of cases)
      expect(budgetLimitsProblem({ budget } as never), JSON.stringify(budget)).toMatch(expected);
    expect(budgetLimitsProblem({ treeTokenBudget: -5 })).toMatch(/treeTokenBudget must be a positive whole number/);
  });

  it('is checked by startAgent before anything starts', async () => {
    const cwd = project();
    await expect(
      rootAgentInput({ prompt: 'p', cwd, homeDir: cwd, limits: { budget: { caps: { tokens: -1 } } } }),
    ).rejects.toThrow(/^Bad budget: limits.budget: budget cap tokens/);
    const input = await rootAgentInput({
      prompt: 'p',
      cwd,
      homeDir: cwd,
      limits: { budget: { caps: { tokens: 9000 }, action: 'finish' } },
    });
    expect(input.limits.budget).toEqual({ caps: { tokens: 9000 }, action: 'finish' });
    expect(input.budgeted).toBe(true);
    expect(input).not.toHaveProperty('budgetCaps');
  });
});

describe('a root started with an agent type that has caps', () => {
  it('gets its type’s caps as its own', async () => {
    const cwd = project({ capped: 'maxTokens: 40000\nmaxTime: 10m' });
    const input = await rootAgentInput({ prompt: 'p', cwd, homeDir: cwd, type: 'capped' });
    expect(input.budgetCaps).toEqual({ tokens: 40_000, wallTimeMs: 600_000 });
    expect(input.budgeted).toBe(true);
    expect(input.limits.budget).toBeUndefined();
  });

  it('keeps both its type’s and the tree’s caps in force, the lower of each', async () => {
    const cwd = project({ capped: 'maxTokens: 40000\nmaxTime: 10m' });
    const input = await rootAgentInput({
      prompt: 'p',
      cwd,
      homeDir: cwd,
      type: 'capped',
      limits: { budget: { caps: { tokens: 90_000, costUsd: 3 } } },
    });
    expect(input.budgetCaps).toEqual({ tokens: 40_000, wallTimeMs: 600_000 });
    expect(input.limits.budget?.caps).toEqual({ tokens: 40_000, costUsd: 3, wallTimeMs: 600_000 });
  });
});
