import { beforeAll, describe, expect, it } from 'vitest';
import type { BudgetSnapshot } from '../../src/shared/budget/budget';
import { scenario, useAgentTestEnv } from '../helpers/agent-env';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';
import { waitFor } from '../helpers/child-worker';
import { agentPrompted } from '../helpers/scripted-agents';

const env = useAgentTestEnv(
  scenario([
    agentPrompted('BUDGET-ROOT', [
      {
        text: 'starting the capped child',
        toolUses: [
          {
            name: 'Agent',
            input: {
              description: 'capped child',
              prompt: 'CAPPED-CHILD',
              subagent_type: 'capped',
              budget: { max_tokens: 30_000, max_cost_usd: 5 },
            },
          },
        ],
      },
      { text: 'ROOT-DONE' },
    ]),
    agentPrompted('CAPPED-CHILD', [{ text: 'CHILD-DONE' }]),
    agentPrompted('PLAIN-ROOT', [{ text: 'PLAIN-DONE' }]),
  ]),
);
beforeAll(async () => {
  await env.writeFiles({
    '.claude/agents/capped.md':
      '---\nname: capped\ndescription: A capped helper\nmaxTokens: 40000\nmaxToolCalls: 7\nmaxTime: 30m\n---\nDo the task.\n',
  });
});
useCliEnvironment(env);

async function snapshotOf(agentId: string): Promise<BudgetSnapshot> {
  const shown = await cli('budget', agentId, '--json');
  expect(shown, shown.err).toMatchObject({ code: 0 });
  return JSON.parse(shown.out) as BudgetSnapshot;
}

describe('subagents budget', () => {
  it('starts a capped tree from the CLI, shows its ledger by agent and changes its caps while it runs', async () => {
    const started = await cli(
      'start',
      'BUDGET-ROOT go',
      '--cwd',
      env.workspace,
      '--max-tokens',
      '200000',
      '--max-cost-usd',
      '50',
      '--on-budget',
      'finish',
      '--interactive',
      '--json',
    );
    expect(started, started.err).toMatchObject({ code: 0 });
    const rootId = (JSON.parse(started.out) as { agentId: string }).agentId;
    const childId = `${rootId}.1`;
    try {
      // The root answers after its foreground child, then waits for a message (it stays running).
      await waitFor(
        async () => {
          const snapshot = await snapshotOf(rootId);
          const child = snapshot.accounts.find((account) => account.agentId === childId);
          return (
            child?.running === false &&
            (snapshot.accounts.find((account) => account.agentId === rootId)?.own.turns ?? 0) >= 2
          );
        },
        60_000,
        'the child ended and the root answered',
      );

      const snapshot = await snapshotOf(rootId);
      expect(snapshot).toMatchObject({ rootAgentId: rootId, action: 'finish', refusals: 0 });
      const root = snapshot.accounts.find((account) => account.agentId === rootId)!;
      const child = snapshot.accounts.find((account) => account.agentId === childId)!;
      expect(root.caps).toEqual({ tokens: 200_000, costUsd: 50 });
      // The type's caps and the call's, the lower of each: 30,000 tokens from the call, the rest from the type.
      expect(child).toMatchObject({
        parentAgentId: rootId,
        caps: { tokens: 30_000, costUsd: 5, toolCalls: 7, wallTimeMs: 1_800_000 },
      });
      expect(child.subtree.tokens).toBeGreaterThan(0);
      expect(child.subtree.turns).toBe(1);
      expect(root.subtree.tokens).toBe(root.own.tokens + child.subtree.tokens);
      expect(root.subtree.turns).toBe(3);
      expect(root.reservedTokens).toBe(0);
      // What the agents' own counts say the tree used is what the ledger counted.
      const status = await env.client.getAgent(rootId).status();
      const used =
        status.treeUsage.inputTokens +
        status.treeUsage.outputTokens +
        status.treeUsage.cacheCreationInputTokens +
        status.treeUsage.cacheReadInputTokens;
      expect(root.subtree.tokens).toBe(used);

      // Asked of a subagent, the answer is its tree's root's ledger.
      expect((await snapshotOf(childId)).rootAgentId).toBe(rootId);

      const table = await cli('budget', rootId);
      expect(table.code).toBe(0);
      expect(table.out).toMatch(/^agent\s+tokens\s+cost\s+turns\s+tool calls\s+reserved\s+caps\s+exhausted/);
      expect(table.out).toMatch(
        new RegExp(`\\n${rootId}\\s+[\\d,]+\\s+\\$[\\d.]+\\s+3\\s+1\\s+-\\s+200,000 tokens, \\$50\\.00\\s+-`),
      );
      expect(table.out).toContain(`  ${childId} (ended)`);
      expect(table.out).toContain('30,000 tokens, $5.00, 7 tool calls, 30m');

      // Raising the tree's cap and lowering the child's subtree's: the caps now in force are printed, and the ledger holds them.
      expect(await cli('budget', rootId, '--set', 'tokens=300000', '--set', 'toolCalls=50')).toMatchObject({
        code: 0,
        out: `caps of the tree ${rootId} now: 300,000 tokens, $50.00, 50 tool calls`,
      });
      const lowered = await cli('budget', rootId, '--set', 'tokens=12345', '--subtree', childId, '--json');
      expect(lowered.code).toBe(0);
      expect(JSON.parse(lowered.out)).toEqual({
        agentId: childId,
        caps: { tokens: 12_345, costUsd: 5, toolCalls: 7, wallTimeMs: 1_800_000 },
      });
      const changed = await snapshotOf(rootId);
      expect(changed.accounts.find((account) => account.agentId === rootId)?.caps).toEqual({
        tokens: 300_000,
        costUsd: 50,
        toolCalls: 50,
      });
      expect(changed.accounts.find((account) => account.agentId === childId)?.caps?.tokens).toBe(12_345);

      // Errors: an unknown agent (4), a subtree the ledger does not hold (4), a misspelt cap (2).
      expect(await cli('budget', 'agent-nobody-here')).toMatchObject({
        code: 4,
        err: expect.stringContaining('No agent "agent-nobody-here"'),
      });
      expect(await cli('budget', rootId, '--set', 'tokens=5', '--subtree', `${rootId}.9`)).toMatchObject({
        code: 4,
        err: expect.stringContaining(`No agent "${rootId}.9" in the ledger`),
      });
      expect(await cli('budget', rootId, '--set', 'tokns=5')).toMatchObject({
        code: 2,
        err: expect.stringContaining('Did you mean "tokens"?'),
      });
    } finally {
      await env.client.getAgent(rootId).close();
    }
  });

  it('refuses to set caps on a tree that started without any: its calls are not reserved', async () => {
    const plain = await env.start({ prompt: 'PLAIN-ROOT' });
    await plain.result();
    const shown = await cli('budget', plain.agentId);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('This tree has no caps');
    expect(await cli('budget', plain.agentId, '--set', 'tokens=5000')).toMatchObject({
      code: 1,
      err: expect.stringContaining('started without caps'),
    });
  });
});
