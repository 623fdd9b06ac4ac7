// @slow
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/cli/watch/watch-model';
import { scenario, useAgentTestEnv } from '../helpers/agent-env';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';
import { agentNamed, bash } from '../helpers/scripted-agents';

/** The caps reached and their spending where a person looks: status, ls --tree, watch and the Temporal UI's current details. */

const treeTokens = 60_000;

const env = useAgentTestEnv(
  scenario([
    agentNamed('views-root', [
      {
        text: 'starting a capped worker',
        toolUses: [
          {
            name: 'Agent',
            input: {
              description: 'capped worker',
              prompt: 'VIEWS-CHILD',
              run_in_background: true,
              budget: { max_tool_calls: 3 },
            },
          },
        ],
      },
      // Slow turns: the worker reaches its own cap well before the tree reaches its.
      ...Array.from({ length: 40 }, () => ({
        text: `ROOT-WORKING ${'lorem ipsum dolor sit amet '.repeat(40)}`,
        toolUses: [bash('sleep 0.2')],
        delayMs: 300,
      })),
    ]),
    {
      match: { userIncludes: 'VIEWS-CHILD' },
      turns: Array.from({ length: 10 }, () => ({
        toolUses: [1, 2, 3].map((step) => bash(`echo step ${step}`)),
      })),
    },
    agentNamed('views-plain', [{ text: 'PLAIN-DONE' }]),
  ]),
);
useCliEnvironment(env, { NO_COLOR: '1' });

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('budgets in status, ls --tree, watch and the Temporal UI', () => {
  it('a tree stopped at its budget, with a subtree stopped at its own cap first, shows both reasons and the spending', async () => {
    const handle = await env.start({
      prompt: 'work under caps',
      name: 'views-root',
      limits: { budget: { caps: { tokens: treeTokens, costUsd: 20 } } },
    });
    const rootId = handle.agentId;
    const childId = `${rootId}.1`;
    const capTokens = treeTokens.toLocaleString('en-US');
    const treeReason = `the tree's budget of ${capTokens} tokens`;
    const childReason = `the subtree of ${childId}'s budget of 3 tool calls, 3 made`;

    // watch --plain from the start until the root ends: each cap reached as it happens, the tree's spending when the tree changes.
    const watched = await cli('watch', rootId, '--plain', '--interval', '200');
    expect(watched.code, watched.err).toBe(1);
    const watchLines = watched.out.split('\n');
    const childReached = watchLines.findIndex((line) => line.endsWith(`budget reached: ${childReason}`));
    const treeReached = watchLines.findIndex((line) => line.includes(`budget reached: ${treeReason}`));
    const rootEnded = watchLines.findIndex((line) => line.includes('"views-root"  [cancelled]'));
    // Both are reported before the root's ending (in one poll, or the worker's first when the polls are far apart).
    expect(childReached, watched.out).toBeGreaterThanOrEqual(0);
    expect(treeReached, watched.out).toBeGreaterThanOrEqual(0);
    expect(Math.max(childReached, treeReached), watched.out).toBeLessThan(rootEnded);
    expect(watched.out).toMatch(
      new RegExp(
        `\\d\\d:\\d\\d:\\d\\d budget: [\\d,]+ / ${escape(capTokens)} tokens · \\$[\\d.]+ / \\$20\\.00 · \\d+ tool calls? · \\d+ turns?`,
      ),
    );
    expect(watched.out).toContain(`status: cancelled (stopped by budget: ${treeReason}`);

    const ledger = await handle.budget();
    const rootAccount = ledger.accounts.find((account) => account.agentId === rootId)!;
    const spent = `${rootAccount.subtree.tokens.toLocaleString('en-US')} / ${capTokens} tokens`;

    // status of the root: its result (why it ended) and the tree's spending against its caps.
    const rootShown = await cli('status', rootId);
    expect(rootShown.code, rootShown.err).toBe(0);
    expect(rootShown.out).toContain(`status: cancelled (stopped by budget: ${treeReason}`);
    expect(rootShown.out).toContain(`\nbudget: tree ${spent} · $`);
    // status of the capped worker: its subtree against its caps, then the tree's.
    const childShown = await cli('status', childId);
    expect(childShown.out).toContain(`status: cancelled (stopped by budget: ${childReason})`);
    expect(childShown.out).toMatch(
      new RegExp(
        `\\nbudget: subtree [\\d,]+ tokens · \\$[\\d.]+ · 3 / 3 tool calls · \\d turns? \\| tree ${escape(spent)} · \\$`,
      ),
    );
    const childJson = JSON.parse((await cli('status', childId, '--json')).out) as {
      result: unknown;
      budget: { action: string; subtree: { agentId: string }; reached: string };
    };
    expect(childJson.budget).toMatchObject({ action: 'stop', subtree: { agentId: childId }, reached: childReason });
    expect(childJson.result).toMatchObject({ status: 'cancelled' });

    // ls --tree: each agent's subtree spending and reached cap, the tree's spending and the reason it stopped.
    const listed = await cli('ls', '--tree', rootId);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(
      new RegExp(
        `${escape(childId)} .*\\[background, finished\\] subtree [\\d,]+ tokens · \\$[\\d.]+, budget reached: ${escape(childReason)}`,
      ),
    );
    expect(listed.out).toContain(`spawning allowed · tree ${spent} · $`);
    expect(listed.out).toMatch(
      new RegExp(`\\nbudget reached: ${escape(treeReason)}, [\\d,]+ used \\(the capped subtree is stopped\\)$`),
    );
    expect(JSON.parse((await cli('ls', '--tree', rootId, '--json')).out)).toMatchObject({
      budgetReached: expect.stringContaining(treeReason),
      budget: { rootAgentId: rootId },
    });

    // watch --json of the ended tree: both caps as events, before the result.
    const json = await cli('watch', rootId, '--json');
    const events = json.out.split('\n').map((line) => JSON.parse(line) as WatchEvent);
    expect(
      events
        .filter((event) => event.event === 'budget_reached')
        .sort((left, right) =>
          'agentId' in left && 'agentId' in right ? left.agentId.localeCompare(right.agentId) : 0,
        ),
    ).toEqual([
      { event: 'budget_reached', agentId: rootId, reason: expect.stringContaining(treeReason) },
      { event: 'budget_reached', agentId: childId, reason: childReason },
    ]);
    expect(events[events.length - 1]).toMatchObject({ event: 'result' });

    // The Temporal UI's current details of each agent say why it ended.
    for (const [agentId, reason] of [
      [rootId, treeReason],
      [childId, childReason],
    ] as const) {
      const metadata = (await env.temporal.client.workflow
        .getHandle(agentId)
        .query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(
        new RegExp(`^\\*\\*cancelled\\*\\* after \\d+ turns, \\d+ tool uses: stopped by budget: ${escape(reason)}`),
      );
    }
  }, 180_000);

  it('a tree without caps prints what it printed before: no budget line anywhere', async () => {
    const handle = await env.start({ prompt: 'no caps here', name: 'views-plain' });
    const watched = await cli('watch', handle.agentId, '--plain', '--interval', '200');
    expect(watched.code, watched.err).toBe(0);
    const shown = await cli('status', handle.agentId);
    const listed = await cli('ls', '--tree', handle.agentId);
    for (const output of [watched.out, shown.out, listed.out]) expect(output).not.toMatch(/budget/);
    // The tree's tokens are its agents' (such a tree does not report usage to its root's tree count).
    const status = await handle.status();
    const used =
      status.treeUsage.inputTokens +
      status.treeUsage.outputTokens +
      status.treeUsage.cacheCreationInputTokens +
      status.treeUsage.cacheReadInputTokens;
    expect(used).toBeGreaterThan(0);
    expect(listed.out).toMatch(new RegExp(`\\nspawning allowed · tokens ${used} · 0 pending approval\\(s\\)$`));
    const statusJson = await cli('status', handle.agentId, '--json');
    expect(statusJson.code, statusJson.err).toBe(0);
    expect(JSON.parse(statusJson.out)).not.toHaveProperty('budget');
    const treeJson = await cli('ls', '--tree', handle.agentId, '--json');
    expect(treeJson.code, treeJson.err).toBe(0);
    expect(JSON.parse(treeJson.out)).not.toHaveProperty('budget');
    const metadata = (await env.temporal.client.workflow
      .getHandle(handle.agentId)
      .query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(
      '**completed** after 1 turns, 0 tool uses\n\nTurns 0–1 can be forked or rewound (docs/rewind.md).',
    );
  }, 120_000);
});
