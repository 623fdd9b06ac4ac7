/** What budget tests compare: tokens the local model server served to a tree, and the ledger's accounts. */
import type { ModelServer, RecordedRequest } from '../../src/model-server/server';
import type { ServedTotals } from '../../src/model-server/served';
import type { BudgetAccount, BudgetSnapshot } from '../../src/shared/budget/budget';

/** Tokens the model server served to the agents of one tree (its log of every messages request). */
export function servedToTree(modelServer: ModelServer, rootId: string): number {
  const byAgent = modelServer.usage().byAgent as Record<string, ServedTotals>;
  return Object.entries(byAgent)
    .filter(([agentId]) => agentId === rootId || agentId.startsWith(`${rootId}.`))
    .reduce((sum, [, served]) => sum + served.totalTokens, 0);
}

/** The tree's own account (its root's subtree is the whole tree). */
export function rootAccount(snapshot: BudgetSnapshot): BudgetAccount {
  return accountOf(snapshot, snapshot.rootAgentId)!;
}

/** One agent's account, if the ledger has one. */
export function accountOf(snapshot: BudgetSnapshot, agentId: string): BudgetAccount | undefined {
  return snapshot.accounts.find((account) => account.agentId === agentId);
}

/** How many of these requests were cut after the model server had served some of their input. */
export function cutAfterServing(requests: readonly RecordedRequest[]): number {
  return requests.filter(
    ({ served }) =>
      served &&
      !served.complete &&
      served.inputTokens + served.cacheCreationInputTokens + served.cacheReadInputTokens > 0,
  ).length;
}
