import type { Client } from '@temporalio/client';
import type { AgentStatusSnapshot } from '../shared/agents/agent';
import type { BudgetSnapshot } from '../shared/budget/budget';
import { budgetQuery, statusQuery, treeQuery } from '../shared/protocol/definitions';
import { rootAgentIdKey } from '../shared/protocol/search-attributes';
import type { TreeSnapshot } from '../shared/protocol/tree';

// The reads of AgentHandle (src/client/client.ts) over a plain Temporal client, for the read-only commands (see temporal-session.ts).

/** The agent's live status, or its result once finished (a query: served by a worker). */
export function agentStatus(temporal: Client, agentId: string): Promise<AgentStatusSnapshot> {
  return temporal.workflow.getHandle(agentId).query(statusQuery);
}

/** The whole tree as its root knows it (call on the root). */
export function agentTree(temporal: Client, rootId: string): Promise<TreeSnapshot> {
  return temporal.workflow.getHandle(rootId).query(treeQuery);
}

/** The ledger of the agent's tree by agent, asked of the tree's root (its RootAgentId search attribute; itself for a root). */
export async function treeBudget(temporal: Client, agentId: string): Promise<BudgetSnapshot> {
  const description = await temporal.workflow.getHandle(agentId).describe();
  const rootId = (description.typedSearchAttributes.get(rootAgentIdKey) as string | undefined) ?? agentId;
  return temporal.workflow.getHandle(rootId).query(budgetQuery);
}
