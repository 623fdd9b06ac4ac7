import { condition, getExternalWorkflowHandle, type SignalDefinition } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import {
  approvalRequestSignal,
  treeAgentEventSignal,
  treeAgentStartedSignal,
  treeSpawnRequestSignal,
  type TreeAgentStarted,
  type TreeSpawnReply,
} from '../../shared/protocol/definitions';
import type { TokenUsage } from '../../shared/model/messages';
import type { ApprovalRequest } from '../../shared/protocol/tree';
import { cancelBestEffort, signalBestEffort } from '../runtime/best-effort-signal';
import type { BudgetLink } from '../budget/budget-link';
import { workflowNowMs } from '../runtime/clock';
import { treeRefusedSpawn } from './spawn-limits';
import { tellStopped } from './stop-delivery';
import { TreeCoordinator } from './tree-coordinator';
import type { TreeLedgerKeeper } from '../budget/tree-ledger';

/**
 * One agent's link to its tree's root, which keeps the tree's bookkeeping (docs/architecture.md,
 * Agent tree): the root holds a {@link TreeCoordinator} and decides locally; every other agent
 * reports to it and asks it by signal. It also knows whether the agent is in a foreground chain.
 */
export class TreeLink {
  /** The tree's bookkeeping: present on the root only. */
  readonly coordinator?: TreeCoordinator;
  /** The tree's ledger (docs/budgets.md): present on the root only. */
  readonly ledger?: TreeLedgerKeeper;
  private readonly spawnReplies = new Map<string, TreeSpawnReply>();
  private foreground: boolean;
  /** Root with a tree budget: stops itself when the budget is reached (src/workflows/budget/tree-budget.ts). */
  private stopSelf?: (notice: { by: string; reason: string }) => void;

  constructor(
    private readonly input: AgentWorkflowInput,
    budget: BudgetLink,
  ) {
    // The root of a tree is its own root: a tree's first agent, or a subagent resumed after its whole tree had ended.
    const isRoot = input.rootAgentId === input.agentId;
    this.ledger = budget.ledger;
    this.coordinator = isRoot ? new TreeCoordinator(input.agentId, input.limits, this.ledger) : undefined;
    this.ledger?.stopWith((scopeAgentId, reason) => this.stopAtBudget(scopeAgentId, reason));
    // A reached cap with the action `ask` waits on an approval the root holds for a person.
    this.ledger?.askWith({
      hold: (request) => this.coordinator!.holdApproval(request),
      withdraw: (requestId) => void this.coordinator!.takeApproval(requestId),
    });
    this.foreground = input.inForegroundChain ?? isRoot;
  }

  /** This agent and all its ancestors run in the foreground: its approval requests bubble to a person. */
  get inForegroundChain(): boolean {
    return this.foreground;
  }

  /** The parent stopped waiting for this agent (auto-background). */
  movedToBackground(): void {
    this.foreground = false;
  }

  /** The root's answer to a spawn request of this agent. */
  receiveSpawnReply(reply: TreeSpawnReply): void {
    this.spawnReplies.set(reply.requestId, reply);
  }

  /** Asks the root for a slot in the tree. Returns a refusal, or undefined when granted. */
  async reserveSlot(childId: string): Promise<string | undefined> {
    if (this.coordinator) {
      const decision = this.coordinator.request(childId, this.input.agentId);
      return decision.granted ? undefined : decision.reason;
    }
    const requestId = `${childId}@${this.input.agentId}`;
    // Must reach the root: without an answer the spawn would wait forever.
    await getExternalWorkflowHandle(this.input.rootAgentId).signal(treeSpawnRequestSignal, {
      requestId,
      requesterId: this.input.agentId,
      childId,
    });
    await condition(() => this.spawnReplies.has(requestId));
    const reply = this.spawnReplies.get(requestId)!;
    this.spawnReplies.delete(requestId);
    return reply.granted ? undefined : (reply.reason ?? treeRefusedSpawn);
  }

  /** A child of this agent is running (started in the foreground or background). */
  async reportStarted(event: Omit<TreeAgentStarted, 'parentAgentId'>): Promise<void> {
    const started = { ...event, parentAgentId: this.input.agentId };
    if (this.coordinator) this.coordinator.started(started, workflowNowMs());
    else await this.signalRoot(treeAgentStartedSignal, started);
  }

  /** A foreground child of this agent moved to the background (it may now be stopped at the budget). */
  async reportBackgrounded(agentId: string): Promise<void> {
    if (this.coordinator) this.coordinator.backgrounded(agentId);
    else await this.signalRoot(treeAgentEventSignal, { agentId, kind: 'backgrounded' });
  }

  /** A child of this agent has ended. */
  async reportFinished(agentId: string, background: boolean): Promise<void> {
    if (this.coordinator) this.coordinator.finished(agentId, workflowNowMs());
    else await this.signalRoot(treeAgentEventSignal, { agentId, kind: 'finished', background });
  }

  /** Tokens this agent used, counted against the tree's budget (only when there is one). */
  async reportUsage(usage: TokenUsage): Promise<void> {
    if (this.input.limits.treeTokenBudget === undefined) return;
    if (this.coordinator) await this.countUsage(usage);
    else await this.signalRoot(treeAgentEventSignal, { agentId: this.input.agentId, kind: 'usage', usage });
  }

  /** Root: at the budget, stop the whole tree and this root too. */
  stopWholeTreeAtBudget(stopSelf: (notice: { by: string; reason: string }) => void): void {
    this.stopSelf = stopSelf;
  }

  /**
   * Root: counts usage of an agent of the tree; when it crosses the budget, stops every running
   * agent of the tree and then the root itself, saying why.
   */
  async countUsage(usage: TokenUsage): Promise<void> {
    const tree = this.coordinator;
    if (!tree?.addUsage(usage)) return;
    await this.stopAtBudget(
      this.input.agentId,
      `the tree's token budget of ${this.input.limits.treeTokenBudget} tokens was reached (${tree.tokensUsed} used)`,
    );
  }

  /**
   * Root: a cap of the subtree of `scopeAgentId` was reached. The whole tree's (the root's subtree): every
   * running agent is stopped, then the root itself. A subtree's: its running agents, deepest first, each
   * told why; its parent goes on.
   */
  private async stopAtBudget(scopeAgentId: string, reason: string): Promise<void> {
    const tree = this.coordinator!;
    const wholeTree = scopeAgentId === this.input.agentId;
    // The whole tree stops, the root too: no agent of it need report its children's ends.
    const notice = { by: 'budget', reason, ...(wholeTree ? { wholeTree: true } : {}) };
    const agents = wholeTree ? tree.runningAgents() : (this.ledger?.ledger.runningIn(scopeAgentId) ?? []);
    // Every agent's notice and cancellation in this workflow task (src/workflows/tree/stop-delivery.ts).
    await Promise.all(
      agents.map((agentId) => {
        tellStopped(agentId, notice);
        return cancelBestEffort(agentId);
      }),
    );
    if (wholeTree) this.stopSelf?.(notice);
  }

  /** Sends an approval request to the root, which holds it for a person (it must arrive: the agent waits for the answer). */
  async requestApproval(request: ApprovalRequest): Promise<void> {
    await getExternalWorkflowHandle(this.input.rootAgentId).signal(approvalRequestSignal, request);
  }

  /** Takes a request back (the agent was interrupted or stopped while waiting); the root may already be gone. */
  async withdrawApproval(request: ApprovalRequest): Promise<void> {
    await this.signalRoot(approvalRequestSignal, { ...request, withdrawn: true });
  }

  /** Every signal to the root goes out best effort: the root may already have ended. */
  private signalRoot<Payload>(signal: SignalDefinition<[Payload]>, payload: Payload): Promise<boolean> {
    return signalBestEffort(this.input.rootAgentId, signal, payload);
  }
}
