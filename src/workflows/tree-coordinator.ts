import type { AgentLimits, CarriedTreeState } from '../shared/agent';
import type { ApprovalRequest, TreeAgentStarted, TreeNode, TreeSnapshot } from '../shared/definitions';
import type { TokenUsage } from '../shared/messages';
import { totalTokens } from './projection';

/**
 * The root's bookkeeping for its whole tree: who runs (for the per-tree limit and the listing),
 * tokens used (for the budget), whether spawning is paused, and approvals waiting for a person.
 * Every agent of the tree reports to the root by signal; the root decides.
 */
export class TreeCoordinator {
  private readonly reserved = new Set<string>();
  private readonly nodes = new Map<string, TreeNode>();
  private tokens = 0;
  budgetExceeded = false;
  paused = false;
  readonly approvals = new Map<string, ApprovalRequest>();
  /** Tools a person approved "always" for this tree. */
  readonly alwaysAllowed = new Set<string>();

  constructor(
    private readonly rootAgentId: string,
    private readonly limits: AgentLimits,
  ) {}

  private get runningCount(): number {
    return this.reserved.size + [...this.nodes.values()].filter((node) => node.status === 'running').length;
  }

  /** Reserves a slot for a new agent, or says why not. */
  request(childId: string): { granted: true } | { granted: false; reason: string } {
    if (this.paused) {
      return { granted: false, reason: 'SpawnLimitReached: spawning is paused for this agent tree. Do the work yourself, or end your turn and try later.' };
    }
    if (this.budgetExceeded) {
      return { granted: false, reason: 'SpawnLimitReached: this agent tree has used its token budget; no new agents can be started. Finish with what you have.' };
    }
    const running = this.runningCount;
    if (running >= this.limits.maxAgentsPerTree) {
      return {
        granted: false,
        reason: `SpawnLimitReached: this agent tree already has ${running} running agents (limit ${this.limits.maxAgentsPerTree}). Wait for some to finish; do not retry at once.`,
      };
    }
    this.reserved.add(childId);
    return { granted: true };
  }

  started(event: TreeAgentStarted, nowMs: number): void {
    this.reserved.delete(event.agentId);
    const existing = this.nodes.get(event.agentId);
    this.nodes.set(event.agentId, {
      agentId: event.agentId,
      parentAgentId: event.parentAgentId,
      agentType: event.agentType ?? existing?.agentType ?? 'unknown',
      description: event.description ?? existing?.description,
      name: event.name ?? existing?.name,
      depth: event.depth ?? existing?.depth ?? 1,
      background: event.background,
      status: 'running',
      startedAtMs: existing?.status === 'running' ? existing.startedAtMs : (event.startedAtMs ?? nowMs),
    });
  }

  finished(agentId: string, nowMs: number): void {
    this.reserved.delete(agentId);
    const node = this.nodes.get(agentId);
    if (node) this.nodes.set(agentId, { ...node, status: 'finished', finishedAtMs: nowMs });
  }

  /** Adds usage; true when this addition crossed the budget. */
  addUsage(usage: TokenUsage): boolean {
    this.tokens += totalTokens(usage);
    if (this.budgetExceeded || this.limits.treeTokenBudget === undefined || this.tokens < this.limits.treeTokenBudget) return false;
    this.budgetExceeded = true;
    return true;
  }

  get tokensUsed(): number {
    return this.tokens;
  }

  /** Running agents that were spawned in (or moved to) the background: stopped when the budget is reached. */
  runningBackgroundAgents(): string[] {
    return [...this.nodes.values()].filter((node) => node.status === 'running' && node.background).map((node) => node.agentId);
  }

  /** Bookkeeping a continued run of the root carries (only finished nodes: a root continues with no running children). */
  carry(): CarriedTreeState {
    return {
      tokensUsed: this.tokens,
      budgetExceeded: this.budgetExceeded,
      paused: this.paused,
      alwaysAllowed: [...this.alwaysAllowed],
      finishedNodes: [...this.nodes.values()].filter((node) => node.status === 'finished'),
    };
  }

  restore(carried: CarriedTreeState): void {
    this.tokens = carried.tokensUsed;
    this.budgetExceeded = carried.budgetExceeded;
    this.paused = carried.paused;
    for (const tool of carried.alwaysAllowed) this.alwaysAllowed.add(tool);
    for (const node of carried.finishedNodes) this.nodes.set(node.agentId, node);
  }

  snapshot(): TreeSnapshot {
    return {
      rootAgentId: this.rootAgentId,
      spawningPaused: this.paused,
      tokensUsed: this.tokens,
      tokenBudget: this.limits.treeTokenBudget,
      nodes: [...this.nodes.values()],
      pendingApprovals: [...this.approvals.values()],
    };
  }
}
