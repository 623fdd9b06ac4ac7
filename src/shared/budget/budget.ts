import type { TokenUsage } from '../model/messages';

// Spending caps (each holds for an agent's whole subtree) and the ledger's messages (docs/budgets.md).

/** What a subtree may spend. Every field is optional: an absent cap does not limit. */
export interface BudgetCaps {
  /** Tokens: input + output + cache writes + cache reads, as the API bills them. */
  tokens?: number;
  /** US dollars by the price table (src/shared/model/model-prices.ts), cache reads and writes priced as the API does. */
  costUsd?: number;
  /** Tool calls the model asked for. */
  toolCalls?: number;
  /** Model calls (turns). */
  turns?: number;
  /** Wall time from the subtree's start. */
  wallTimeMs?: number;
  /** Agents of the subtree running at once, its own agent included. */
  concurrentAgents?: number;
}

/** The names of the caps, in the order shown. */
export const capNames = ['tokens', 'costUsd', 'toolCalls', 'turns', 'wallTimeMs', 'concurrentAgents'] as const;
export type CapName = (typeof capNames)[number];

/** What reaching a cap does: `stop` the subtree, `finish` (refuse new calls), or `ask` a person (docs/budgets.md). */
export type BudgetAction = 'stop' | 'finish' | 'ask';

export const budgetActions: readonly BudgetAction[] = ['stop', 'finish', 'ask'];

/** The tool name of the approval a reached cap asks for (action `ask`). */
export const budgetApprovalTool = 'Budget';

/** A tree's budget: its caps and what reaching one does. */
export interface TreeBudget {
  caps: BudgetCaps;
  action?: BudgetAction;
}

/** An agent asks the ledger before its model call. */
export interface BudgetReserveRequest {
  /** Unique per model call of the tree: `<agentId>#<run>#<call>`. */
  reservationId: string;
  agentId: string;
  /** Its parent and its subtree's caps: a call may reach the root before the news of its agent's start. */
  parentAgentId?: string;
  caps?: BudgetCaps;
  model: string;
  /** The request's input tokens by the estimate. */
  inputTokens: number;
  /** The max_tokens the agent would send. */
  maxOutputTokens: number;
  /** Fewer output tokens than this are not worth a call (and with thinking, the API refuses them). */
  minOutputTokens: number;
  /** Asked ahead, for the agent's next call while its tools run: a refusal only says no (the next call asks again, exactly). */
  ahead?: boolean;
  /** Room the agent would hold as a lease, to spend on several calls without asking (docs/budgets.md, Leases). */
  leaseTokens?: number;
  /** The agent's lease this request tops up (a lease refused is only told no). */
  topUp?: string;
}

/** The ledger's answer: the call may send `outputTokens` as max_tokens, or it may not start. */
export type BudgetGrant =
  | {
      reservationId: string;
      granted: true;
      outputTokens: number;
      reservedTokens: number;
      /** The room is a lease's (new when it is the reservation's own id, else a top-up of it): the agent spends it on its calls. */
      leaseId?: string;
    }
  | {
      reservationId: string;
      granted: false;
      reason: string;
      scopeAgentId: string;
      cap: CapName;
      action: BudgetAction;
      /** The root takes the lease `reservationId` back: the agent gives back its rest once no call of it is in flight. */
      revoked?: boolean;
    };

/** What one attempt of a model call was billed, sent to the root by the activity that made it. */
export interface BudgetCharge {
  reservationId: string;
  agentId: string;
  model: string;
  /** The activity's attempt: an attempt is charged once, whoever reports it. */
  attempt: number;
  usage: TokenUsage;
  /** Tool calls the answer asked for (complete answers only). */
  toolCalls?: number;
  /** The call is over: the rest of its reservation is released. */
  final: boolean;
  /** A release (attempt 0) of a reservation no call took: nothing was sent, nothing is presumed billed. */
  unused?: boolean;
  /** The call spent its room from this lease (its reservationId is the call's own). */
  leaseId?: string;
  /** A call of a lease given back before it reported: its input estimate, counted until its own charge comes. */
  presumedInputTokens?: number;
  /** After this charge, the lease `leaseId` ends and its rest goes back to the tree. */
  endsLease?: boolean;
}

/** What the model activity needs to charge the ledger. */
export interface ModelCallBudget {
  rootAgentId: string;
  reservationId: string;
  reservedTokens: number;
  /** The lease the call's room came from, if any. */
  leaseId?: string;
}

/** One subtree's account, as `subagents budget` shows it. */
export interface BudgetAccount {
  agentId: string;
  parentAgentId?: string;
  caps?: BudgetCaps;
  /** This agent's own spending. */
  own: Spending;
  /** The agent and everything below it. */
  subtree: Spending;
  /** Tokens held by calls in flight in the subtree. */
  reservedTokens: number;
  reservedCostUsd: number;
  startedAtMs: number;
  running: boolean;
  /** Set when a cap of this subtree was reached. */
  exhausted?: string;
}

export interface Spending {
  tokens: number;
  costUsd: number;
  toolCalls: number;
  turns: number;
}

/** The ledger as the `budget` query answers. */
export interface BudgetSnapshot {
  rootAgentId: string;
  action: BudgetAction;
  accounts: BudgetAccount[];
  /** Calls waiting for room. */
  waiting: number;
  /** Calls whose reservation could not be met. */
  refusals: number;
  /** Tokens charged beyond the calls' reservations (estimate error). */
  overspendTokens: number;
  /** Leases held by agents (room spent without asking), and the tokens they hold. */
  leases?: { held: number; tokens: number };
}

/** Raises (or lowers) caps of a running tree: `subagents budget --set`. */
export interface BudgetChange {
  /** The subtree whose caps change; the root when absent. */
  agentId?: string;
  caps: BudgetCaps;
  by?: string;
}

/** Caps a child may have: what it asks for, never more than what its parent's chain allows (the ledger enforces the chain anyway). */
export function narrowCaps(asked: BudgetCaps | undefined, ceiling: BudgetCaps | undefined): BudgetCaps | undefined {
  if (!asked) return undefined;
  const narrowed: BudgetCaps = {};
  for (const name of capNames) {
    const value = asked[name];
    if (value === undefined) continue;
    const limit = ceiling?.[name];
    narrowed[name] = limit === undefined ? value : Math.min(value, limit);
  }
  return Object.keys(narrowed).length > 0 ? narrowed : undefined;
}

/** Whether caps limit anything. */
export function hasCaps(caps: BudgetCaps | undefined): caps is BudgetCaps {
  return caps !== undefined && capNames.some((name) => caps[name] !== undefined);
}

/** A cap and its use in words: "20,000 tokens, 19,870 used". */
export function capText(cap: CapName, limit: number, used: number): string {
  switch (cap) {
    case 'tokens':
      return `${limit.toLocaleString('en-US')} tokens, ${used.toLocaleString('en-US')} used`;
    case 'costUsd':
      return `$${limit.toFixed(2)}, $${used.toFixed(4)} spent`;
    case 'toolCalls':
      return `${limit} tool calls, ${used} made`;
    case 'turns':
      return `${limit} model turns, ${used} made`;
    case 'wallTimeMs':
      return `${formatDuration(limit)} of wall time, ${formatDuration(used)} elapsed`;
    case 'concurrentAgents':
      return `${limit} agents at once, ${used} running`;
  }
}

/** 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${seconds % 60 ? `${seconds % 60}s` : ''}`;
  return `${Math.floor(minutes / 60)}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
}

/** Checks caps from outside (library, CLI, definitions): each a positive number, whole where it counts things. */
export function capsProblem(caps: BudgetCaps): string | undefined {
  for (const [name, value] of Object.entries(caps)) {
    if (!(capNames as readonly string[]).includes(name))
      return `unknown budget cap "${name}" (known: ${capNames.join(', ')}).`;
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      return `budget cap ${name} must be a positive number (got ${JSON.stringify(value)}).`;
    if (name !== 'costUsd' && !Number.isInteger(value))
      return `budget cap ${name} must be a whole number (got ${value}).`;
  }
  return undefined;
}
