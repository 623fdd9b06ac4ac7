import { describe, expect, it } from 'vitest';
import { parseCapAssignments, startBudget } from '../../src/cli/budget-args';
import { budgetLines, capsText } from '../../src/cli/budget-view';
import { CliError } from '../../src/cli/exit-codes';
import { consoleCapture } from '../helpers/console-capture';
import { main } from '../../src/cli/main';
import type { BudgetAccount, BudgetSnapshot, Spending } from '../../src/shared/budget/budget';

/** The message of the CliError `run` throws (exit 2), or fails. */
function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    return (error as CliError).message;
  }
  throw new Error('no error');
}

describe('start: the budget flags', () => {
  it('become limits.budget: caps and the action', () => {
    expect(
      startBudget({
        'max-tokens': '50000',
        'max-cost-usd': '2.50',
        'max-tool-calls': '100',
        'max-time': '30m',
        'max-agents': '4',
        'on-budget': 'finish',
      }),
    ).toEqual({
      caps: { tokens: 50_000, costUsd: 2.5, toolCalls: 100, wallTimeMs: 1_800_000, concurrentAgents: 4 },
      action: 'finish',
    });
    expect(startBudget({ 'max-tokens': '1000' })).toEqual({ caps: { tokens: 1000 } });
    expect(startBudget({ 'on-budget': 'stop' })).toEqual({ caps: {}, action: 'stop' });
    expect(startBudget({ 'on-budget': 'ask' })).toEqual({ caps: {}, action: 'ask' });
    // Claude Code's name for the cost cap keeps its meaning.
    expect(startBudget({ 'max-budget-usd': '1.25' })).toEqual({ caps: { costUsd: 1.25 } });
    expect(startBudget({})).toBeUndefined();
  });

  it('refuses hostile values, each with a sentence naming the flag', () => {
    for (const value of [
      '-5',
      '0',
      'NaN',
      '1e309',
      '1e3',
      '0x10',
      '1.5',
      '',
      ' 7',
      '+7',
      '9007199254740993',
      '9'.repeat(100_000),
      '50k',
    ]) {
      const message = usageError(() => startBudget({ 'max-tokens': value }));
      expect(message).toContain('--max-tokens must be a positive whole number');
      expect(message.length).toBeLessThan(200);
    }
    for (const value of ['-1', '0', 'NaN', '1e309', 'Infinity', '$2', '2,50'])
      expect(usageError(() => startBudget({ 'max-cost-usd': value }))).toContain(
        '--max-cost-usd must be a positive number of US dollars',
      );
    for (const value of ['-30m', '0s', '1y', 'soon', '1e309'])
      expect(usageError(() => startBudget({ 'max-time': value }))).toContain('--max-time: ');
    expect(usageError(() => startBudget({ 'max-agents': '-2' }))).toContain('--max-agents');
    expect(usageError(() => startBudget({ 'max-tool-calls': '3.0' }))).toContain('--max-tool-calls');
    expect(usageError(() => startBudget({ 'on-budget': 'later' }))).toContain('--on-budget must be stop, finish, ask');
    expect(usageError(() => startBudget({ 'max-cost-usd': '2', 'max-budget-usd': '3' }))).toContain('give one of them');
    expect(usageError(() => startBudget({ 'max-budget-usd': '-3' }))).toContain(
      '--max-budget-usd must be a positive number of US dollars',
    );
  });
});

describe('budget --set', () => {
  it('reads NAME=VALUE for every cap, durations for wall time', () => {
    expect(
      parseCapAssignments([
        'tokens=50000',
        'costUsd=2',
        'toolCalls=9',
        'turns=30',
        'wallTimeMs=1h',
        'concurrentAgents=3',
      ]),
    ).toEqual({
      tokens: 50_000,
      costUsd: 2,
      toolCalls: 9,
      turns: 30,
      wallTimeMs: 3_600_000,
      concurrentAgents: 3,
    });
    expect(parseCapAssignments(['wallTimeMs=90000'])).toEqual({ wallTimeMs: 90_000 });
  });

  it('refuses unknown names (with the one meant), repeats, and hostile values', () => {
    expect(usageError(() => parseCapAssignments(['tokns=5']))).toContain(
      'no cap named "tokns". Did you mean "tokens"?',
    );
    expect(usageError(() => parseCapAssignments(['costusd=5']))).toContain('Did you mean "costUsd"?');
    expect(usageError(() => parseCapAssignments(['__proto__=5']))).toContain('no cap named "__proto__"');
    expect(usageError(() => parseCapAssignments([`${'x'.repeat(100_000)}=5`])).length).toBeLessThan(300);
    expect(usageError(() => parseCapAssignments(['tokens']))).toContain('--set takes NAME=VALUE');
    expect(usageError(() => parseCapAssignments(['tokens=']))).toContain('--set takes NAME=VALUE');
    expect(usageError(() => parseCapAssignments(['tokens=5', 'tokens=6']))).toContain('tokens is given twice');
    for (const value of ['-5', 'NaN', '1e309', '0', '1.5'])
      expect(usageError(() => parseCapAssignments([`tokens=${value}`]))).toContain(
        '--set tokens must be a positive whole number',
      );
    expect(usageError(() => parseCapAssignments(['costUsd=-2']))).toContain('--set costUsd must be a positive number');
  });
});

/** What an account spent, in the order the table shows it. */
const spent = (tokens: number, costUsd: number, toolCalls: number, turns: number): Spending => ({
  tokens,
  costUsd,
  toolCalls,
  turns,
});
/** A running account with nothing reserved, started at 0. */
const account = (agentId: string, own: Spending, subtree: Spending, extra: Partial<BudgetAccount>): BudgetAccount => ({
  agentId,
  own,
  subtree,
  reservedTokens: 0,
  reservedCostUsd: 0,
  startedAtMs: 0,
  running: true,
  ...extra,
});

describe('the budget table', () => {
  const snapshot: BudgetSnapshot = {
    rootAgentId: 'agent-r',
    action: 'stop',
    accounts: [
      account('agent-r', spent(1000, 0.01, 1, 2), spent(4000, 0.04, 3, 5), { caps: { tokens: 50_000, costUsd: 2 } }),
      account('agent-r.1', spent(3000, 0.03, 2, 3), spent(3000, 0.03, 2, 3), {
        parentAgentId: 'agent-r',
        caps: { tokens: 3000, wallTimeMs: 1_800_000 },
        reservedTokens: 1200,
        running: false,
        exhausted: "the subtree of agent-r.1's budget of 3,000 tokens, 3,000 used",
      }),
    ],
    waiting: 1,
    refusals: 2,
    overspendTokens: 15,
  };

  it('shows each subtree’s spending, reservations, caps and exhaustion, children under parents', () => {
    const lines = budgetLines(snapshot);
    expect(lines[0]).toMatch(/^agent\s+tokens\s+cost\s+turns\s+tool calls\s+reserved\s+caps\s+exhausted$/);
    expect(lines[1]).toMatch(/^agent-r\s+4,000\s+\$0\.04\s+5\s+3\s+-\s+50,000 tokens, \$2\.00\s+-$/);
    expect(lines[2]).toMatch(
      /^ {2}agent-r\.1 \(ended\)\s+3,000\s+\$0\.03\s+3\s+2\s+1,200 tokens\s+3,000 tokens, 30m\s+the subtree of agent-r\.1's budget/,
    );
    expect(lines.join('\n')).toContain(
      'On a reached cap: stop the subtree · 1 call(s) waiting for room · 2 refusal(s) · 15 token(s) beyond reservations',
    );
    expect(lines.join('\n')).not.toContain('has no caps');
  });

  it('says when the tree has no caps', () => {
    const bare = { ...snapshot, accounts: snapshot.accounts.map(({ caps: _caps, ...account }) => account) };
    expect(budgetLines(bare).at(-1)).toContain('This tree has no caps');
    expect(capsText(undefined)).toBe('-');
  });
});

describe('subagents budget without a server', () => {
  const { printed, capture } = consoleCapture();

  it('answers --help, refuses bad arguments before connecting (exit 2), with the flag meant', async () => {
    capture();
    expect(await main(['budget', '--help'])).toBe(0);
    expect(printed.at(-1)).toMatch(/^usage: subagents budget <agentId> \[--json\] \[--set NAME=VALUE \.\.\.\]/);
    expect(await main(['budget', 'agent-1', '--sett', 'tokens=5'])).toBe(2);
    expect(printed.at(-1)).toContain("Unknown option '--sett'. Did you mean --set?");
    expect(await main(['budget', 'agent-1', '--set', 'tokns=5'])).toBe(2);
    expect(printed.at(-1)).toContain('Did you mean "tokens"?');
    expect(await main(['budget', 'agent-1', '--subtree', 'agent-1.1'])).toBe(2);
    expect(printed.at(-1)).toContain('give --set NAME=VALUE too');
    expect(await main(['budget', 'a', 'b'])).toBe(2);
    expect(await main(['start', 'go', '--max-tokens=-1'])).toBe(2);
    expect(printed.at(-1)).toContain('--max-tokens must be a positive whole number (got "-1")');
    expect(await main(['start', 'go', '--max-tokns', '5'])).toBe(2);
    expect(printed.at(-1)).toContain('Did you mean --max-tokens?');
    expect(await main(['start', 'go', '--on-budget', 'later'])).toBe(2);
  });
});
