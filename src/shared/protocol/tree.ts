import type { AgentColor } from '../agents/agent-colors';
import type { CarriedLedger } from '../budget/budget-ledger';

/** The root's view of its tree: the agents it knows, approvals waiting for a person, and what continue-as-new carries. */

/** One agent of a tree as the root knows it. */
export interface TreeNode {
  agentId: string;
  parentAgentId?: string;
  agentType: string;
  /** Display colour of its type, when the definition has one. */
  color?: AgentColor;
  description?: string;
  name?: string;
  depth: number;
  background: boolean;
  status: 'running' | 'finished';
  startedAtMs: number;
  finishedAtMs?: number;
}

/** The answer of the root's `tree` query. */
export interface TreeSnapshot {
  rootAgentId: string;
  spawningPaused: boolean;
  tokensUsed: number;
  tokenBudget?: number;
  /** Set once a cap of the whole tree was reached: which, and its use (docs/budgets.md). */
  budgetReached?: string;
  nodes: TreeNode[];
  pendingApprovals: ApprovalRequest[];
}

/** A tool call waiting for a person, held by the root. */
export interface ApprovalRequest {
  requestId: string;
  agentId: string;
  agentType: string;
  tool: string;
  toolUseId: string;
  inputSummary: string;
  requestedAtMs: number;
  /** What an "always" answer approves for the tree when narrower than the tool: `WebFetch(domain:example.com)`. */
  permission?: string;
  /** Set when the agent takes the request back (interrupted or stopped while waiting). */
  withdrawn?: boolean;
}

/** A person's answer to an approval request (and the root's answer to the agent that asked). */
export interface ApprovalDecision {
  requestId: string;
  approved: boolean;
  /** Approve this tool for the rest of the tree's life. */
  always?: boolean;
  by?: string;
  reason?: string;
  /** Approve the call with this input instead of the model's (the Claude Agent SDK's `updatedInput`); it must pass the same checks. */
  updatedInput?: Record<string, unknown>;
}

/** The root's tree bookkeeping across continue-as-new. */
export interface CarriedTreeState {
  tokensUsed: number;
  budgetExceeded: boolean;
  paused: boolean;
  alwaysAllowed: string[];
  finishedNodes: TreeNode[];
  /** The tree's ledger (docs/budgets.md), when it was used. */
  ledger?: CarriedLedger;
}
