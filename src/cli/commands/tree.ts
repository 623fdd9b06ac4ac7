import { totalTokens } from '../../shared/model/messages';
import type { TreeNode } from '../../shared/protocol/tree';
import { ExitCode } from '../exit-codes';
import { colorEnabled, colorize } from '../../shared/agents/agent-colors';
import { todoSummary } from '../../shared/tools/todos';
import { accountOf, budgetOfCappedTree, nodeBudgetTexts, reachedActionText, spendingText } from '../budget-status';
import { formatStall, formatUsage } from '../format';
import { agentStatus, agentTree, treeBudget } from '../agent-queries';
import { connectTemporal } from '../temporal-session';
import { treeAgentVersions, versionKey } from '../../client/deployments';

/** The tree as indented lines, children under their parents; `budget`: each agent's subtree spending (a capped tree); `versions`: "dep:build" by agent. */
export function treeLines(
  nodes: TreeNode[],
  live: Map<string, string>,
  rootId: string,
  color = false,
  budget?: ReadonlyMap<string, string>,
  versions?: ReadonlyMap<string, string>,
): string[] {
  const children = new Map<string, TreeNode[]>();
  for (const node of nodes)
    children.set(node.parentAgentId ?? '', [...(children.get(node.parentAgentId ?? '') ?? []), node]);
  const lines: string[] = [];
  const walk = (parentId: string, indent: string) => {
    for (const node of children.get(parentId) ?? []) {
      const label = `${colorize(node.agentType, node.color, color)}${node.name ? ` "${node.name}"` : ''}: ${node.description ?? ''}`;
      const spent = budget?.get(node.agentId);
      const version = versions?.get(node.agentId);
      const details = [live.get(node.agentId), spent, version === undefined ? undefined : `version ${version}`]
        .filter((text) => text !== undefined && text !== '')
        .join(' · ');
      lines.push(
        `${indent}${node.agentId}  ${label}  [${node.background ? 'background' : 'foreground'}, ${node.status}] ${details}`.trimEnd(),
      );
      walk(node.agentId, `${indent}  `);
    }
  };
  walk(rootId, '  ');
  return lines;
}

/** `ls --tree <rootId>`: the root's tree query, enriched with each running agent's own status. */
export async function lsTree(rootId: string, json: boolean): Promise<number> {
  const { temporal, close } = await connectTemporal();
  try {
    // One ledger query for the whole tree, only shown when it has caps.
    const [tree, rootStatus, budget, versions] = await Promise.all([
      agentTree(temporal, rootId),
      agentStatus(temporal, rootId),
      budgetOfCappedTree(() => treeBudget(temporal, rootId)),
      treeAgentVersions(temporal, rootId),
    ]);
    const versionKeys = new Map([...versions].map(([agentId, version]) => [agentId, versionKey(version)]));
    const live = new Map<string, string>();
    const statuses: Record<string, unknown> = { [rootId]: rootStatus };
    for (const node of tree.nodes.filter((candidate) => candidate.status === 'running')) {
      const status = await agentStatus(temporal, node.agentId).catch(() => undefined);
      if (!status) continue;
      statuses[node.agentId] = status;
      const seconds = Math.round((Date.now() - status.startedAtMs) / 1000);
      const todos = todoSummary(status.todos);
      live.set(
        node.agentId,
        `turn ${status.turn}, ${seconds}s, last tool ${status.lastTool ?? '-'}, ${formatUsage(status.usage)}${status.pendingApprovals ? `, ${status.pendingApprovals} pending approval(s)` : ''}${status.permissionDenials?.count ? `, ${status.permissionDenials.count} permission denial(s)` : ''}${todos ? `, todos ${todos}` : ''}${status.stalled ? `, STALLED ${formatStall(status.stalled)}` : ''}`,
      );
    }
    if (json) {
      const deploymentVersions = Object.fromEntries(versions);
      console.log(
        JSON.stringify({
          ...tree,
          statuses,
          ...(budget ? { budget } : {}),
          ...(versions.size ? { deploymentVersions } : {}),
        }),
      );
      return ExitCode.ok;
    }
    const rootTodos = todoSummary(rootStatus.todos);
    const color = colorEnabled(process.stdout, process.env);
    console.log(
      `${rootId}  ${colorize(rootStatus.agentType, rootStatus.color, color)}  [root, ${rootStatus.state}] turn ${rootStatus.turn}, ${formatUsage(rootStatus.treeUsage)} (tree)${rootTodos ? `, todos ${rootTodos}` : ''}${rootStatus.stalled ? `, STALLED ${formatStall(rootStatus.stalled)}` : ''}${versionKeys.has(rootId) ? ` · version ${versionKeys.get(rootId)}` : ''}`,
    );
    for (const line of treeLines(
      tree.nodes,
      live,
      rootId,
      color,
      budget ? nodeBudgetTexts(budget) : undefined,
      versionKeys,
    ))
      console.log(line);
    const treeAccount = budget ? accountOf(budget, rootId) : undefined;
    // A tree without a token budget reports no usage to its root (tokensUsed stays 0): its agents' usage counts.
    const tokens =
      tree.tokenBudget === undefined ? Math.max(tree.tokensUsed, totalTokens(rootStatus.treeUsage)) : tree.tokensUsed;
    const spending = treeAccount
      ? `tree ${spendingText(treeAccount, Date.now())}`
      : `tokens ${tokens}${tree.tokenBudget ? ` / budget ${tree.tokenBudget}` : ''}`;
    console.log(
      `spawning ${tree.spawningPaused ? 'PAUSED' : 'allowed'} · ${spending} · ${tree.pendingApprovals.length} pending approval(s)`,
    );
    const reached = tree.budgetReached ?? treeAccount?.exhausted;
    if (reached) console.log(`budget reached: ${reached}${budget ? ` (${reachedActionText(budget.action)})` : ''}`);
    return ExitCode.ok;
  } finally {
    await close();
  }
}
