import type { TreeAgentStarted } from '../../shared/protocol/definitions';
import type { AgentLimits } from '../../shared/protocol/limits';
import { totalTokens, type TokenUsage } from '../../shared/model/messages';
import type { ApprovalRequest, CarriedTreeState, TreeNode, TreeSnapshot } from '../../shared/protocol/tree';
import { treeCapsOf } from '../../shared/protocol/limits';
import { treeSpawnRefusal } from './spawn-limits';
import type { TreeLedgerKeeper } from '../budget/tree-ledger';

/** Finished agents a continued root carries at most (the tree listing shows these; running ones are always known). */
const maxCarriedFinishedNodes = 1000;

/** The root's bookkeeping for its tree (running agents, tokens, pause, approvals); agents report by signal. */
export class TreeCoordinator {
  private readonly reserved = new Set<string>();
  private readonly nodes = new Map<string, TreeNode>();
  private tokens = 0;
  private budgetReached = false;
  private spawningPaused = false;
  private readonly approvals = new Map<string, ApprovalRequest>();
  private readonly alwaysAllowedTools = new Set<string>();

  constructor(
    private readonly rootAgentId: string,
    private readonly limits: AgentLimits,
    /** The tree's ledger (docs/budgets.md): told of every start and end, asked about spawns. */
    private readonly ledger?: TreeLedgerKeeper,
  ) {}

  private get runningCount(): number {
    return this.reserved.size + [...this.nodes.values()].filter((node) => node.status === 'running').length;
  }

  /** Reserves a slot for a new agent under `parentAgentId`, or says why not. */
  request(childId: string, parentAgentId?: string): { granted: true } | { granted: false; reason: string } {
    const capped = parentAgentId !== undefined ? this.ledger?.admission(parentAgentId, [...this.reserved]) : undefined;
    if (capped) return { granted: false, reason: capped };
    const reason = treeSpawnRefusal({
      paused: this.spawningPaused,
      budgetExceeded: this.budgetReached,
      runningAgents: this.runningCount,
      maxAgentsPerTree: this.limits.maxAgentsPerTree,
    });
    if (reason) return { granted: false, reason };
    this.reserved.add(childId);
    return { granted: true };
  }

  started(event: TreeAgentStarted, nowMs: number): void {
    this.reserved.delete(event.agentId);
    const existing = this.nodes.get(event.agentId);
    if (existing?.status !== 'running') this.ledger?.joined(event.agentId, event.parentAgentId, event.budgetCaps);
    this.nodes.set(event.agentId, {
      agentId: event.agentId,
      parentAgentId: event.parentAgentId,
      agentType: event.agentType ?? existing?.agentType ?? 'unknown',
      ...((event.color ?? existing?.color) ? { color: event.color ?? existing?.color } : {}),
      description: event.description ?? existing?.description,
      name: event.name ?? existing?.name,
      depth: event.depth ?? existing?.depth ?? 1,
      background: event.background,
      status: 'running',
      startedAtMs: existing?.status === 'running' ? existing.startedAtMs : (event.startedAtMs ?? nowMs),
    });
  }

  /** A running agent's parent stopped waiting for it: it now counts as background (stopped at the budget). */
  backgrounded(agentId: string): void {
    const node = this.nodes.get(agentId);
    if (node) this.nodes.set(agentId, { ...node, background: true });
  }

  /** Marks every agent still running finished (the root's whole tree has closed after a stop). */
  finishRunning(nowMs: number): void {
    this.reserved.clear();
    for (const node of [...this.nodes.values()]) if (node.status === 'running') this.finished(node.agentId, nowMs);
  }

  finished(agentId: string, nowMs: number): void {
    this.reserved.delete(agentId);
    const node = this.nodes.get(agentId);
    if (node) this.nodes.set(agentId, { ...node, status: 'finished', finishedAtMs: nowMs });
    if (node?.status === 'running') this.ledger?.leaving(agentId);
  }

  /** Adds usage; true when this addition crossed the budget. */
  addUsage(usage: TokenUsage): boolean {
    this.tokens += totalTokens(usage);
    if (this.budgetReached || this.limits.treeTokenBudget === undefined || this.tokens < this.limits.treeTokenBudget)
      return false;
    this.budgetReached = true;
    return true;
  }

  /** Why the tree's own caps stop it, once one is reached (docs/budgets.md). */
  get treeBudgetReached(): string | undefined {
    return this.ledger?.ledger.exhaustionOf(this.rootAgentId);
  }

  /** Pauses (or resumes) new spawns in the whole tree; running agents go on. */
  pauseSpawning(paused: boolean): void {
    this.spawningPaused = paused;
  }

  /** Tokens counted: by the ledger, or (runs before it) by usage reports. */
  get tokensUsed(): number {
    return this.tokens + (this.ledger?.ledger.total.tokens ?? 0);
  }

  /** Every running agent of the tree, deepest first (all of them are stopped at the budget). */
  runningAgents(): string[] {
    return [...this.nodes.values()]
      .filter((node) => node.status === 'running')
      .sort((left, right) => right.depth - left.depth)
      .map((node) => node.agentId);
  }

  /** Holds a request until a person answers it. */
  holdApproval(request: ApprovalRequest): void {
    this.approvals.set(request.requestId, request);
  }

  /** Removes a pending request (answered or withdrawn) and returns it. */
  takeApproval(requestId: string): ApprovalRequest | undefined {
    const request = this.approvals.get(requestId);
    this.approvals.delete(requestId);
    return request;
  }

  hasPendingApproval(requestId: string): boolean {
    return this.approvals.has(requestId);
  }

  pendingApprovals(): ApprovalRequest[] {
    return [...this.approvals.values()];
  }

  /** Tools a person approved "always" for this tree. */
  get alwaysAllowed(): ReadonlySet<string> {
    return this.alwaysAllowedTools;
  }

  allowAlways(tool: string): void {
    this.alwaysAllowedTools.add(tool);
  }

  /** Bookkeeping a continued run of the root carries (only finished nodes: a root continues with no running children). */
  carry(): CarriedTreeState {
    return {
      tokensUsed: this.tokens,
      budgetExceeded: this.budgetReached || this.treeBudgetReached !== undefined,
      paused: this.spawningPaused,
      alwaysAllowed: [...this.alwaysAllowedTools],
      finishedNodes: [...this.nodes.values()]
        .filter((node) => node.status === 'finished')
        .slice(-maxCarriedFinishedNodes),
      ...(this.ledger?.used ? { ledger: this.ledger.ledger.carry() } : {}),
    };
  }

  restore(carried: CarriedTreeState): void {
    this.tokens = carried.tokensUsed;
    this.budgetReached = carried.budgetExceeded;
    this.spawningPaused = carried.paused;
    for (const tool of carried.alwaysAllowed) this.alwaysAllowedTools.add(tool);
    for (const node of carried.finishedNodes) this.nodes.set(node.agentId, node);
    if (carried.ledger) this.ledger?.restore(carried.ledger);
    // A subtree resumed as a root of its own (or a run before the ledger) opens the ledger with what its tree had used.
    else if (this.ledger?.opens(carried.tokensUsed)) this.tokens = 0;
  }

  snapshot(): TreeSnapshot {
    return {
      rootAgentId: this.rootAgentId,
      spawningPaused: this.spawningPaused,
      tokensUsed: this.tokensUsed,
      tokenBudget: treeCapsOf(this.limits)?.tokens,
      ...(this.treeBudgetReached ? { budgetReached: this.treeBudgetReached } : {}),
      nodes: [...this.nodes.values()],
      pendingApprovals: this.pendingApprovals(),
    };
  }
}
