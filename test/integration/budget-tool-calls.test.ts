// @slow
import { describe, expect, it } from 'vitest';
import type { ServedTotals } from '../../src/model-server/served';
import type { BudgetSnapshot } from '../../src/shared/budget/budget';
import { useAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { localSiteWeb, useLocalSite } from '../helpers/local-site';
import { agentNamed, agentOfType, agentPrompted, spawn } from '../helpers/scripted-agents';

const site = useLocalSite(
  `<html><head><title>Notes</title></head><body><p>${'Release 7 ships MCP support. '.repeat(50)}</p></body></html>`,
);
// WebFetch may reach this machine's test server only because the worker is configured to allow it.
const env = useAgentTestEnv({ kind: 'echo' }, localSiteWeb());

/** Tokens the local model server served to one tree: its agents' own calls and their tools' calls (`<agentId>/WebFetch`). */
function servedTo(rootId: string): Record<string, number> {
  const byAgent = env.modelServer.usage().byAgent as Record<string, ServedTotals>;
  return Object.fromEntries(
    Object.entries(byAgent)
      .filter(([agentId]) => agentId === rootId || agentId.startsWith(`${rootId}.`) || agentId.startsWith(`${rootId}/`))
      .map(([agentId, served]) => [agentId, served.totalTokens]),
  );
}

const sum = (served: Record<string, number>): number =>
  Object.values(served).reduce((total, tokens) => total + tokens, 0);

function rootAccount(snapshot: BudgetSnapshot) {
  return snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId)!;
}

type Block = { type: string; content?: unknown; is_error?: boolean };

async function toolResults(handle: Awaited<ReturnType<AgentTestEnv['start']>>): Promise<Block[]> {
  const messages = await handle.messages();
  return messages
    .flatMap((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []))
    .filter((block) => block.type === 'tool_result');
}

describe("tools' own model calls in the tree's ledger", () => {
  it("reserves and charges WebFetch's model call, the root's and a child's: the ledger counts what was served", async () => {
    const name = 'tool-ledger-counted';
    env.script(
      agentOfType('WebFetch', [{ text: `The page says release 7 ships MCP support. ${'detail '.repeat(60)}` }]),
      agentNamed(name, [
        { toolUses: [{ name: 'WebFetch', input: { url: `${site.url()}/root`, prompt: 'What does release 7 ship?' } }] },
        { toolUses: [spawn('fetcher', 'FETCH-CHILD read the notes')] },
        { text: 'ROOT-DONE' },
      ]),
      agentPrompted('FETCH-CHILD', [
        {
          toolUses: [{ name: 'WebFetch', input: { url: `${site.url()}/child`, prompt: 'What does release 7 ship?' } }],
        },
        { text: 'CHILD-DONE' },
      ]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'fetch the notes',
      name,
      limits: { budget: { caps: { tokens: 200_000 } } },
    });
    const results = await toolResults(handle);
    expect(String(results[0]!.content)).toMatch(/^Fetched .*\/root \(HTTP 200[\s\S]*release 7 ships MCP support/);

    const served = servedTo(handle.agentId);
    // Both tools' own calls reached the model server, under their own agent ids.
    expect(served[`${handle.agentId}/WebFetch`]).toBeGreaterThan(0);
    expect(served[`${handle.agentId}.1/WebFetch`]).toBeGreaterThan(0);
    const snapshot = await handle.budget();
    // Every served token is counted: the agents' calls and their tools' calls.
    expect(rootAccount(snapshot).subtree.tokens).toBe(sum(served));
    const child = snapshot.accounts.find((account) => account.agentId === `${handle.agentId}.1`)!;
    expect(child.own.tokens).toBe(served[`${handle.agentId}.1`]! + served[`${handle.agentId}.1/WebFetch`]!);
    expect(rootAccount(snapshot).reservedTokens).toBe(0);
    expect(snapshot.overspendTokens).toBe(0);
  }, 120_000);

  it('refuses a WebFetch whose model call does not fit the budget: the tool is not run and the agent goes on', async () => {
    const name = 'tool-ledger-refused';
    env.script(
      agentOfType('WebFetch', [{ text: 'The page says release 7 ships MCP support.' }]),
      agentNamed(name, [
        {
          toolUses: [{ name: 'WebFetch', input: { url: `${site.url()}/small`, prompt: 'What does release 7 ship?' } }],
        },
        { text: 'ROOT-WENT-ON' },
      ]),
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'fetch the notes',
      name,
      limits: { budget: { caps: { tokens: 20_000 } } },
    });
    expect(result.finalText).toContain('ROOT-WENT-ON');
    const [fetched] = await toolResults(handle);
    expect(fetched).toMatchObject({ is_error: true });
    expect(String(fetched!.content)).toMatch(
      /^BudgetExhausted: WebFetch was not run: its model call needs room for [\d,]+ tokens, more than is left in the tree's budget of 20,000 tokens, [\d,]+ used\./,
    );

    const served = servedTo(handle.agentId);
    expect(Object.keys(served)).toEqual([handle.agentId]);
    const snapshot = await handle.budget();
    expect(rootAccount(snapshot).subtree.tokens).toBe(sum(served));
    // A tool's refusal only says no: the tree's budget is not marked reached.
    expect(rootAccount(snapshot).exhausted).toBeUndefined();
  }, 120_000);
});
