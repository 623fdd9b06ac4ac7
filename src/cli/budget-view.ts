import {
  formatDuration,
  hasCaps,
  type BudgetAccount,
  type BudgetCaps,
  type BudgetSnapshot,
} from '../shared/budget/budget';
import { formatTable } from './table';

/** `subagents budget`: the tree's ledger as a table, one row per agent, children under their parents. */

/** 12345 → "12,345". */
export const number = (value: number): string => value.toLocaleString('en-US');
/** Dollars: two decimals, four below a cent. */
export const usd = (value: number): string => `$${value.toFixed(value > 0 && value < 0.01 ? 4 : 2)}`;

/** Caps in a few words: "50,000 tokens, $2.00, 100 tool calls, 30m". */
export function capsText(caps: BudgetCaps | undefined): string {
  if (!hasCaps(caps)) return '-';
  const parts: string[] = [];
  if (caps.tokens !== undefined) parts.push(`${number(caps.tokens)} tokens`);
  if (caps.costUsd !== undefined) parts.push(usd(caps.costUsd));
  if (caps.toolCalls !== undefined) parts.push(`${number(caps.toolCalls)} tool calls`);
  if (caps.turns !== undefined) parts.push(`${number(caps.turns)} turns`);
  if (caps.wallTimeMs !== undefined) parts.push(formatDuration(caps.wallTimeMs));
  if (caps.concurrentAgents !== undefined) parts.push(`${number(caps.concurrentAgents)} agents at once`);
  return parts.join(', ');
}

/** The accounts in tree order (a parent before its children), each with its depth. */
function inTreeOrder(snapshot: BudgetSnapshot): { account: BudgetAccount; depth: number }[] {
  const byParent = new Map<string, BudgetAccount[]>();
  for (const account of snapshot.accounts) {
    if (account.agentId === snapshot.rootAgentId) continue;
    const parent = account.parentAgentId ?? snapshot.rootAgentId;
    byParent.set(parent, [...(byParent.get(parent) ?? []), account]);
  }
  const ordered: { account: BudgetAccount; depth: number }[] = [];
  const seen = new Set<string>();
  const walk = (account: BudgetAccount, depth: number) => {
    if (seen.has(account.agentId)) return;
    seen.add(account.agentId);
    ordered.push({ account, depth });
    for (const child of byParent.get(account.agentId) ?? []) walk(child, depth + 1);
  };
  const root = snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId);
  if (root) walk(root, 0);
  // An account whose parent the ledger does not hold still gets its row.
  for (const account of snapshot.accounts) walk(account, 1);
  return ordered;
}

/** The table and a closing line: what reaching a cap does, calls waiting, refusals, tokens beyond reservations. */
export function budgetLines(snapshot: BudgetSnapshot): string[] {
  const header = ['agent', 'tokens', 'cost', 'turns', 'tool calls', 'reserved', 'caps', 'exhausted'];
  const rows = inTreeOrder(snapshot).map(({ account, depth }) => [
    `${'  '.repeat(depth)}${account.agentId}${account.running ? '' : ' (ended)'}`,
    number(account.subtree.tokens),
    usd(account.subtree.costUsd),
    number(account.subtree.turns),
    number(account.subtree.toolCalls),
    account.reservedTokens > 0 ? `${number(account.reservedTokens)} tokens` : '-',
    capsText(account.caps),
    account.exhausted ?? '-',
  ]);
  const lines = formatTable([header, ...rows]).map((line) => line.trimEnd());
  lines.push(
    '',
    "Each row counts the agent's whole subtree (the agent and every agent below it); caps hold for that subtree.",
    `On a reached cap: ${snapshot.action === 'stop' ? 'stop the subtree' : 'refuse new calls and spawns; agents finish with what they have'} · ${snapshot.waiting} call(s) waiting for room · ${snapshot.refusals} refusal(s) · ${number(snapshot.overspendTokens)} token(s) beyond reservations`,
  );
  if (!snapshot.accounts.some((account) => hasCaps(account.caps))) {
    lines.push(
      'This tree has no caps: its model calls are not reserved. Start it with caps (subagents start --max-tokens N ..., or maxTokens etc. in its agent type).',
    );
  }
  return lines;
}
