import { describe, expect, it } from 'vitest';
import {
  budgetOfCappedTree,
  capReachedOver,
  nodeBudgetTexts,
  spendingText,
  statusBudgetJson,
  statusBudgetLines,
} from '../../src/cli/budget-status';
import { treeLines } from '../../src/cli/commands/tree';
import { renderTree } from '../../src/cli/watch/render';
import { buildFrame, frameEvents, type PollReading } from '../../src/cli/watch/watch-model';
import type { AgentStatusSnapshot } from '../../src/shared/agents/agent';
import type { BudgetAccount, BudgetSnapshot } from '../../src/shared/budget/budget';

const spending = (tokens: number, costUsd: number, toolCalls: number, turns: number) => ({
  tokens,
  costUsd,
  toolCalls,
  turns,
});
const account = (overrides: Partial<BudgetAccount> & Pick<BudgetAccount, 'agentId'>): BudgetAccount => ({
  own: spending(0, 0, 0, 0),
  subtree: spending(0, 0, 0, 0),
  reservedTokens: 0,
  reservedCostUsd: 0,
  startedAtMs: 0,
  running: true,
  ...overrides,
});

/** A root capped at 20,000 tokens and $2, a child whose subtree has 3 tool calls and 30 minutes, and a grandchild. */
function ledger(exhausted: { root?: string; child?: string } = {}): BudgetSnapshot {
  return {
    rootAgentId: 'root',
    action: 'stop',
    accounts: [
      account({
        agentId: 'root',
        caps: { tokens: 20_000, costUsd: 2 },
        subtree: spending(12_340, 0.41, 7, 3),
        ...(exhausted.root ? { exhausted: exhausted.root } : {}),
      }),
      account({
        agentId: 'root.1',
        parentAgentId: 'root',
        caps: { toolCalls: 3, wallTimeMs: 1_800_000 },
        subtree: spending(1_234, 0.052, 3, 1),
        startedAtMs: 60_000,
        ...(exhausted.child ? { exhausted: exhausted.child } : {}),
      }),
      account({ agentId: 'root.1.1', parentAgentId: 'root.1', subtree: spending(500, 0.004, 1, 1), running: false }),
    ],
    waiting: 0,
    refusals: 0,
    overspendTokens: 0,
  };
}

describe('budget lines of status, ls --tree and watch', () => {
  it('shows spending against caps, a count without a cap as a plain count', () => {
    const snapshot = ledger();
    expect(spendingText(snapshot.accounts[0]!, 0)).toBe(
      '12,340 / 20,000 tokens · $0.41 / $2.00 · 7 tool calls · 3 turns',
    );
    expect(spendingText(snapshot.accounts[1]!, 180_000)).toBe(
      '1,234 tokens · $0.05 · 3 / 3 tool calls · 1 turn · 2m / 30m',
    );
    expect(spendingText({ ...snapshot.accounts[1]!, running: false }, 180_000)).toBe(
      '1,234 tokens · $0.05 · 3 / 3 tool calls · 1 turn · time cap 30m',
    );
  });

  it('status: the root shows the tree; a subagent its subtree and the tree; a running one under a reached cap says which', () => {
    expect(statusBudgetLines(ledger(), 'root', true, 0)).toEqual([
      'budget: tree 12,340 / 20,000 tokens · $0.41 / $2.00 · 7 tool calls · 3 turns',
    ]);
    const reason = "the subtree of root.1's budget of 3 tool calls, 3 made";
    const lines = statusBudgetLines(ledger({ child: reason }), 'root.1.1', true, 120_000);
    expect(lines).toEqual([
      'budget: subtree 500 tokens · $0.0040 · 1 tool call · 1 turn | tree 12,340 / 20,000 tokens · $0.41 / $2.00 · 7 tool calls · 3 turns',
      `budget reached: ${reason} (the capped subtree is stopped)`,
    ]);
    // An ended agent's result says why it ended; its sibling subtree's cap is not its own.
    expect(statusBudgetLines(ledger({ child: reason }), 'root.1.1', false, 0)).toHaveLength(1);
    expect(capReachedOver(ledger({ child: reason }), 'root')).toBeUndefined();
    expect(statusBudgetLines({ ...ledger({ root: 'the tree' }), action: 'finish' }, 'root.1', true, 0)[1]).toBe(
      'budget reached: the tree (no new model calls or spawns in the capped subtree; its agents end with what they have)',
    );
    expect(statusBudgetJson(ledger({ root: 'the tree' }), 'root.1')).toMatchObject({
      action: 'stop',
      subtree: { agentId: 'root.1' },
      tree: { agentId: 'root' },
      reached: 'the tree',
    });
  });

  it('a tree without caps (or a root that does not answer) gives no ledger, so nothing is printed', async () => {
    const uncapped = { ...ledger(), accounts: ledger().accounts.map(({ caps: _caps, ...rest }) => rest) };
    await expect(budgetOfCappedTree(async () => uncapped)).resolves.toBeUndefined();
    await expect(budgetOfCappedTree(() => Promise.reject(new Error('query not registered')))).resolves.toBeUndefined();
    await expect(budgetOfCappedTree(async () => ledger())).resolves.toMatchObject({ rootAgentId: 'root' });
  });

  it("ls --tree adds each agent's subtree spending and its reached cap; without a ledger the lines are as before", () => {
    const nodes = [
      {
        agentId: 'root.1',
        parentAgentId: 'root',
        agentType: 'worker',
        depth: 1,
        background: true,
        status: 'running' as const,
        startedAtMs: 0,
      },
      {
        agentId: 'root.1.1',
        parentAgentId: 'root.1',
        agentType: 'worker',
        depth: 2,
        background: false,
        status: 'finished' as const,
        startedAtMs: 0,
      },
    ];
    const live = new Map([['root.1', 'turn 2, 5s']]);
    expect(treeLines(nodes, live, 'root')).toEqual([
      '  root.1  worker:   [background, running] turn 2, 5s',
      '    root.1.1  worker:   [foreground, finished]',
    ]);
    const texts = nodeBudgetTexts(ledger({ child: "the subtree of root.1's budget of 3 tool calls, 3 made" }));
    expect(treeLines(nodes, live, 'root', false, texts)).toEqual([
      "  root.1  worker:   [background, running] turn 2, 5s · subtree 1,234 tokens · $0.05, budget reached: the subtree of root.1's budget of 3 tool calls, 3 made",
      '    root.1.1  worker:   [foreground, finished] subtree 500 tokens · $0.0040',
    ]);
  });

  it("watch: the tree's spending above the tree, a budget_reached event once per cap reached, nothing for an uncapped tree", () => {
    const rootStatus = {
      agentId: 'root',
      agentType: 'general-purpose',
      state: 'calling_model',
      turn: 3,
      currentTools: [],
      startedAtMs: 0,
    } as unknown as AgentStatusSnapshot;
    const poll = (budget?: BudgetSnapshot): PollReading => ({
      tree: { rootAgentId: 'root', spawningPaused: false, tokensUsed: 12_340, nodes: [], pendingApprovals: [] },
      rootStatus,
      statuses: new Map(),
      live: new Map(),
      ...(budget ? { budget } : {}),
    });
    const plain = buildFrame(poll());
    expect(plain.budget).toBeUndefined();
    expect(renderTree(plain, { nowMs: 0, styled: false })).not.toContain('budget');

    const first = buildFrame(poll(ledger()));
    expect(renderTree(first, { nowMs: 0, styled: false }).split('\n')[0]).toBe(
      'budget: 12,340 / 20,000 tokens · $0.41 / $2.00 · 7 tool calls · 3 turns',
    );
    const reason = "the tree's budget of 20,000 tokens, 19,870 used";
    const reached = buildFrame(poll(ledger({ root: reason })), first);
    expect(frameEvents(first, reached).filter((event) => event.event === 'budget_reached')).toEqual([
      { event: 'budget_reached', agentId: 'root', reason },
    ]);
    expect(renderTree(reached, { nowMs: 0, styled: false }).split('\n')[1]).toBe(`budget reached: ${reason}`);
    // Once only; and a poll whose ledger query went unanswered keeps the last one read.
    const later = buildFrame(poll(), reached);
    expect(later.budget?.reached).toEqual([{ agentId: 'root', reason }]);
    expect(frameEvents(reached, later).filter((event) => event.event === 'budget_reached')).toEqual([]);
  });
});
