import type { AgentLimits } from '../shared/agent';
import type { TokenUsage } from '../shared/messages';
import { totalTokens } from './projection';

/**
 * The root's bookkeeping for its whole tree: running agents (for the per-tree limit) and tokens
 * used (for the budget). Every agent of the tree reports to the root by signal; the root decides.
 */
export class TreeCoordinator {
  private readonly running = new Map<string, { background: boolean; started: boolean }>();
  private tokens = 0;
  budgetExceeded = false;

  constructor(private readonly limits: AgentLimits) {}

  /** Reserves a slot for a new agent, or says why not. */
  request(childId: string): { granted: true } | { granted: false; reason: string } {
    if (this.budgetExceeded) {
      return { granted: false, reason: 'SpawnLimitReached: this agent tree has used its token budget; no new agents can be started. Finish with what you have.' };
    }
    if (this.running.size >= this.limits.maxAgentsPerTree) {
      return {
        granted: false,
        reason: `SpawnLimitReached: this agent tree already has ${this.running.size} running agents (limit ${this.limits.maxAgentsPerTree}). Wait for some to finish; do not retry at once.`,
      };
    }
    this.running.set(childId, { background: false, started: false });
    return { granted: true };
  }

  started(agentId: string, background: boolean): void {
    this.running.set(agentId, { background, started: true });
  }

  finished(agentId: string): void {
    this.running.delete(agentId);
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

  /** Running agents that were spawned in the background (stopped when the budget is reached). */
  runningBackgroundAgents(): string[] {
    return [...this.running.entries()].filter(([, entry]) => entry.started && entry.background).map(([agentId]) => agentId);
  }

  get runningCount(): number {
    return this.running.size;
  }
}
