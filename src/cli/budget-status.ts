import {
  formatDuration,
  hasCaps,
  type BudgetAccount,
  type BudgetCaps,
  type BudgetSnapshot,
  type Spending,
} from '../shared/budget/budget';
import { number, usd } from './budget-view';

/** The budget lines of `status`, `ls --tree` and `watch`: spending against caps and the caps reached, from one `budget` query. */

/** The ledger of a tree that has caps; undefined for a tree without any (or a root that does not answer the query): nothing is shown then. */
export async function budgetOfCappedTree(read: () => Promise<BudgetSnapshot>): Promise<BudgetSnapshot | undefined> {
  // The budget lines are an addition: the commands' own queries report a tree that cannot be read.
  const snapshot = await read().catch(() => undefined);
  return snapshot && snapshot.accounts.some((account) => hasCaps(account.caps)) ? snapshot : undefined;
}

/** The account of `agentId` in the ledger. */
export function accountOf(snapshot: BudgetSnapshot, agentId: string): BudgetAccount | undefined {
  return snapshot.accounts.find((account) => account.agentId === agentId);
}

const plural = (count: number, word: string): string => `${number(count)} ${word}${count === 1 ? '' : 's'}`;
const against = (used: string, cap: string | undefined): string => (cap === undefined ? used : `${used} / ${cap}`);

/** Tokens and cost against their caps: "12,340 / 20,000 tokens · $0.41 / $2.00". */
export function tokensAndCost(spending: Spending, caps: BudgetCaps | undefined): string {
  const tokens = `${against(number(spending.tokens), caps?.tokens === undefined ? undefined : number(caps.tokens))} tokens`;
  return `${tokens} · ${against(usd(spending.costUsd), caps?.costUsd === undefined ? undefined : usd(caps.costUsd))}`;
}

/** A subtree's spending against its caps: "12,340 / 20,000 tokens · $0.41 / $2.00 · 7 tool calls · 3 / 10 turns · 2m / 30m". */
export function spendingText(account: BudgetAccount, nowMs: number): string {
  const { subtree, caps } = account;
  const parts = [tokensAndCost(subtree, caps)];
  parts.push(
    caps?.toolCalls === undefined
      ? plural(subtree.toolCalls, 'tool call')
      : `${number(subtree.toolCalls)} / ${number(caps.toolCalls)} tool calls`,
  );
  parts.push(
    caps?.turns === undefined
      ? plural(subtree.turns, 'turn')
      : `${number(subtree.turns)} / ${number(caps.turns)} turns`,
  );
  // An ended subtree's end is not in the ledger: only its cap is shown.
  if (caps?.wallTimeMs !== undefined)
    parts.push(
      account.running
        ? `${formatDuration(Math.max(0, nowMs - account.startedAtMs))} / ${formatDuration(caps.wallTimeMs)}`
        : `time cap ${formatDuration(caps.wallTimeMs)}`,
    );
  if (caps?.concurrentAgents !== undefined) parts.push(`at most ${plural(caps.concurrentAgents, 'agent')} at once`);
  return parts.join(' · ');
}

/** The accounts from `agentId` up to the root, nearest first. */
function chainOf(snapshot: BudgetSnapshot, agentId: string): BudgetAccount[] {
  const chain: BudgetAccount[] = [];
  let account = accountOf(snapshot, agentId);
  // Bounded: a ledger is a tree, but a bad snapshot must not loop.
  while (account && chain.length <= snapshot.accounts.length) {
    chain.push(account);
    account = account.parentAgentId === undefined ? undefined : accountOf(snapshot, account.parentAgentId);
  }
  return chain;
}

/** The nearest cap reached over `agentId` (its own subtree's, an ancestor's or the tree's), with its reason. */
export function capReachedOver(snapshot: BudgetSnapshot, agentId: string): string | undefined {
  return chainOf(snapshot, agentId).find((account) => account.exhausted !== undefined)?.exhausted;
}

/** What the tree does at a reached cap, in a few words (by name: an action this CLI does not know reads as itself). */
export function reachedActionText(action: string): string {
  const texts: Partial<Record<string, string>> = {
    stop: 'the capped subtree is stopped',
    finish: 'no new model calls or spawns in the capped subtree; its agents end with what they have',
    ask: 'calls in the capped subtree wait for a person: subagents approvals',
  };
  return texts[action] ?? `on-budget ${action}`;
}

/** The budget lines of `status`, with "budget reached" only while a running agent is under a reached cap. */
export function statusBudgetLines(
  snapshot: BudgetSnapshot,
  agentId: string,
  running: boolean,
  nowMs: number,
): string[] {
  const own = accountOf(snapshot, agentId);
  const tree = accountOf(snapshot, snapshot.rootAgentId);
  const parts: string[] = [];
  if (own && agentId !== snapshot.rootAgentId) parts.push(`subtree ${spendingText(own, nowMs)}`);
  if (tree) parts.push(`tree ${spendingText(tree, nowMs)}`);
  const lines = parts.length > 0 ? [`budget: ${parts.join(' | ')}`] : [];
  const reached = capReachedOver(snapshot, agentId);
  if (running && reached) lines.push(`budget reached: ${reached} (${reachedActionText(snapshot.action)})`);
  return lines;
}

/** What `status --json` adds for a capped tree: the agent's account, the tree's, and the nearest cap reached. */
export function statusBudgetJson(
  snapshot: BudgetSnapshot,
  agentId: string,
): { action: BudgetSnapshot['action']; subtree?: BudgetAccount; tree?: BudgetAccount; reached?: string } {
  const subtree = accountOf(snapshot, agentId);
  const tree = accountOf(snapshot, snapshot.rootAgentId);
  const reached = capReachedOver(snapshot, agentId);
  return {
    action: snapshot.action,
    ...(subtree ? { subtree } : {}),
    ...(tree ? { tree } : {}),
    ...(reached ? { reached } : {}),
  };
}

/** `ls --tree`, per agent: "subtree 1,234 / 30,000 tokens · $0.05", and "budget reached: …" when a cap of its own subtree was. */
export function nodeBudgetTexts(snapshot: BudgetSnapshot): Map<string, string> {
  const texts = new Map<string, string>();
  for (const account of snapshot.accounts) {
    texts.set(
      account.agentId,
      `subtree ${tokensAndCost(account.subtree, account.caps)}${account.exhausted ? `, budget reached: ${account.exhausted}` : ''}`,
    );
  }
  return texts;
}
