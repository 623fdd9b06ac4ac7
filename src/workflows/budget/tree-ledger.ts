import { allHandlersFinished, CancellationScope, condition } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import {
  budgetApprovalTool,
  capText,
  narrowCaps,
  type CapName,
  type BudgetCaps,
  type BudgetChange,
  type BudgetCharge,
  type BudgetGrant,
  type BudgetReserveRequest,
} from '../../shared/budget/budget';
import { BudgetLedger, type CarriedLedger, type WaitingReserve } from '../../shared/budget/budget-ledger';
import type { ApprovalRequest } from '../../shared/protocol/tree';
import { budgetGrantSignal } from '../../shared/protocol/definitions';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { treeCapsOf } from '../../shared/protocol/limits';
import { costOfUsage } from '../../shared/model/model-prices';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';

/** How long a closing root waits for the charges of its tree's cut calls. */
const settleWait = '10 seconds';

/** Stops a capped subtree (the whole tree when it is the root's), each agent told why. */
export type StopScope = (scopeAgentId: string, reason: string) => Promise<void>;

/**
 * The root's half of the tree's ledger (docs/budgets.md): it answers reservations (at once, or when
 * calls in flight give back room), takes the charges the model activities send, enforces wall-time
 * caps with a timer, and stops a subtree whose cap is reached when the tree's action is `stop`.
 */
export class TreeLedgerKeeper {
  readonly ledger: BudgetLedger;
  /** The root's own reservations, answered in this workflow. */
  private readonly ownGrants = new Map<string, BudgetGrant>();
  private stopScope?: StopScope;
  private deadlineWatch = false;
  private changes = 0;
  private ended = false;
  private inUse = false;
  /** Subtrees whose reached cap waits for a person, with the approval asked. */
  private readonly asking = new Map<string, { requestId: string; cap: CapName }>();
  /** Subtrees a person refused more budget: they stop. */
  private readonly denied = new Set<string>();
  private asks = 0;
  private approvals?: { hold(request: ApprovalRequest): void; withdraw(requestId: string): void };
  /** The root's Notification hooks hear of each question a reached cap asks (docs/hooks.md). */
  private notify?: (message: string) => void;

  constructor(private readonly input: AgentWorkflowInput) {
    const action = input.limits.budget?.action ?? 'stop';
    // The tree's caps and the root's own (its type's): the lower of each holds.
    const caps = narrowCaps(treeCapsOf(input.limits), input.budgetCaps) ?? input.budgetCaps;
    this.ledger = new BudgetLedger(input.agentId, caps, action, costOfUsage, workflowNowMs());
  }

  /** How a reached cap stops its subtree (set by the root once its parts exist). */
  stopWith(stopScope: StopScope): void {
    this.stopScope = stopScope;
  }

  restore(carried: CarriedLedger): void {
    this.inUse = true;
    this.ledger.restore(carried);
    this.watchDeadlinesOnce();
  }

  /** A budgeted tree that opens with tokens already used (a resumed subtree): they count against its caps. True when taken. */
  opens(tokensUsed: number): boolean {
    if (this.input.budgeted !== true || tokensUsed <= 0) return false;
    this.ledger.openWith(tokensUsed);
    this.inUse = true;
    return true;
  }

  /** An agent of the tree started: caps of its subtree join the ledger, and a wall-time cap arms the timer. */
  joined(agentId: string, parentAgentId: string | undefined, caps: BudgetCaps | undefined): void {
    this.ledger.join(agentId, parentAgentId, caps, workflowNowMs());
    this.changes += 1;
    if (caps?.wallTimeMs !== undefined) this.watchDeadlines();
  }

  /** An agent ended: calls it left waiting or in flight are settled, and those waiting for room may get it. */
  leaving(agentId: string): void {
    this.ledger.leave(agentId);
    if (this.ledger.hasWaiting) void this.answerWaiting();
  }

  /** Tells the agents whose leases the ledger asked back (a subtree got tight, capped or its caps changed). */
  private async sendRevokes(): Promise<void> {
    for (const { leaseId, agentId, reason, scopeAgentId } of this.ledger.takeRevokes()) {
      if (agentId === this.input.agentId) continue;
      // An agent that is gone gives its lease back when the root learns it ended.
      await signalBestEffort(agentId, budgetGrantSignal, {
        reservationId: leaseId,
        granted: false,
        reason,
        scopeAgentId,
        cap: 'tokens',
        action: this.ledger.onCapReached,
        revoked: true,
      });
    }
  }

  /** Why no agent may start under `parentAgentId` now (a cap reached in its chain, or its subtree at its concurrency cap). */
  admission(parentAgentId: string, starting: readonly string[]): string | undefined {
    const refusal = this.ledger.admit(parentAgentId, starting);
    return refusal
      ? errorText(
          ErrorType.SpawnLimitReached,
          `${refusal.reason}; no new agents can be started there. Finish with what you have.`,
        )
      : undefined;
  }

  /** Whether the tree used its ledger (then a continued root carries it). */
  get used(): boolean {
    return this.inUse;
  }

  /** A reservation of an agent of the tree (the root's own included). */
  async reserve(request: BudgetReserveRequest, requesterId: string, settle?: BudgetCharge): Promise<void> {
    this.inUse = true;
    if (settle) this.ledger.charge(settle);
    if (this.ledger.nodeRunning(request.agentId) === false) return;
    const decision = this.ledger.decide(request, workflowNowMs());
    if ('wait' in decision) {
      this.ledger.enqueue({ request, requesterId });
      await this.sendRevokes();
      return;
    }
    await this.answer({ request, requesterId }, decision);
    await this.sendRevokes();
  }

  /** The root's own call: decided here, waiting in this workflow when it must. */
  async reserveOwn(request: BudgetReserveRequest, settle?: BudgetCharge): Promise<BudgetGrant> {
    await this.requestOwn(request, settle);
    return this.ownGrant(request.reservationId);
  }

  /** Asks for the root's own call without waiting for the answer (a reservation ahead). */
  async requestOwn(request: BudgetReserveRequest, settle?: BudgetCharge): Promise<void> {
    this.watchDeadlinesOnce();
    await this.reserve(request, this.input.agentId, settle);
  }

  /** The answer to one of the root's own reservations if there is one yet (taken). */
  takeOwnGrant(reservationId: string): BudgetGrant | undefined {
    const grant = this.ownGrants.get(reservationId);
    this.ownGrants.delete(reservationId);
    return grant;
  }

  /** The answer to one of the root's own reservations, once there is one. */
  async ownGrant(reservationId: string): Promise<BudgetGrant> {
    await condition(() => this.ownGrants.has(reservationId));
    const grant = this.ownGrants.get(reservationId)!;
    this.ownGrants.delete(reservationId);
    return grant;
  }

  async charge(charge: BudgetCharge): Promise<void> {
    this.inUse = true;
    this.ledger.charge(charge);
    await this.answerWaiting();
    await this.sendRevokes();
  }

  /** Changes caps of the tree or a subtree (`subagents budget --set`); waiting calls are looked at again. */
  async change(change: BudgetChange): Promise<BudgetCaps> {
    const caps = this.ledger.setCaps(change.agentId, change.caps);
    // New caps answer a pending question about this subtree.
    const scopeAgentId = change.agentId ?? this.input.agentId;
    const asked = this.asking.get(scopeAgentId);
    if (asked) this.approvals?.withdraw(asked.requestId);
    this.asking.delete(scopeAgentId);
    this.denied.delete(scopeAgentId);
    this.changes += 1;
    if (caps.wallTimeMs !== undefined) this.watchDeadlines();
    await this.answerWaiting();
    await this.sendRevokes();
    return caps;
  }

  /**
   * The root's tree has closed: waits (a little) for the charges of calls cut by the stop, which their
   * activities send as they end, so the ledger counts what was billed (docs/budgets.md). Then its timer stops.
   */
  async settle(): Promise<void> {
    this.ledger.leave(this.input.agentId);
    if (this.inUse && (this.ledger.unsettled > 0 || !allHandlersFinished())) {
      await condition(() => this.ledger.unsettled === 0 && allHandlersFinished(), settleWait);
    }
    this.ended = true;
  }

  private async answerWaiting(): Promise<void> {
    if (!this.ledger.hasWaiting) return;
    for (const { grant, ...entry } of this.ledger.drain(workflowNowMs())) await this.answer(entry, grant);
    await this.sendRevokes();
  }

  private async answer({ request, requesterId }: WaitingReserve, decided: BudgetGrant): Promise<void> {
    let grant = decided;
    if (!grant.granted && request.ahead) {
      // Only told no: the call asks again, exactly, when it is due.
      if (requesterId === this.input.agentId) this.ownGrants.set(grant.reservationId, grant);
      else await signalBestEffort(requesterId, budgetGrantSignal, grant);
      return;
    }
    if (!grant.granted && grant.action === 'ask') {
      // A person decides (an approval on the root); the call waits. After a denial the subtree stops.
      if (!this.denied.has(grant.scopeAgentId)) {
        this.ledger.enqueue({ request, requesterId });
        this.ask(grant.scopeAgentId, grant.cap, grant.reason);
        return;
      }
      grant = { ...grant, action: 'stop' };
    }
    if (requesterId === this.input.agentId) this.ownGrants.set(grant.reservationId, grant);
    // A requester that is gone needs no answer; its reservation closes when the root learns it ended.
    else await signalBestEffort(requesterId, budgetGrantSignal, grant);
    if (!grant.granted && grant.action === 'stop') await this.stopScope?.(grant.scopeAgentId, grant.reason);
  }

  /** Holds one approval per reached subtree for a person: approve raises the cap by half, deny stops the subtree. */
  private ask(scopeAgentId: string, cap: CapName, reason: string): void {
    if (this.asking.has(scopeAgentId) || !this.approvals) return;
    this.asks += 1;
    const requestId = `budget-${this.asks}`;
    this.asking.set(scopeAgentId, { requestId, cap });
    this.approvals.hold({
      requestId,
      agentId: this.input.agentId,
      agentType: this.input.agentType,
      tool: budgetApprovalTool,
      toolUseId: requestId,
      inputSummary:
        `${reason}: approve to raise it by half (${capText(cap, raisedCap(cap, this.ledger.capsOf(scopeAgentId)?.[cap] ?? 0), 0).replace(/, .*$/, '')}), deny to stop the subtree of ${scopeAgentId}; or set caps with subagents budget --set`.slice(
          0,
          3900,
        ),
      requestedAtMs: workflowNowMs(),
    });
    this.notify?.(`${reason}: a person decides whether the subtree of ${scopeAgentId} may go on (subagents approvals)`);
  }

  /** A person's answer to a reached cap's approval (src/workflows/tools/approvals.ts routes it here). */
  async answerAsk(requestId: string, approved: boolean): Promise<void> {
    const scope = [...this.asking.entries()].find(([, asked]) => asked.requestId === requestId);
    if (!scope) return;
    const [scopeAgentId, { cap }] = scope;
    this.asking.delete(scopeAgentId);
    if (approved) {
      const limit = this.ledger.capsOf(scopeAgentId)?.[cap];
      if (limit !== undefined) this.ledger.setCaps(scopeAgentId, { [cap]: raisedCap(cap, limit) });
      this.changes += 1;
    } else {
      this.denied.add(scopeAgentId);
      if (this.ledger.onCapReached === 'ask' && this.ledger.runningIn(scopeAgentId).length > 0) {
        await this.stopScope?.(
          scopeAgentId,
          this.ledger.exhaustionOf(scopeAgentId) ?? `a person denied more budget for ${scopeAgentId}`,
        );
      }
    }
    await this.answerWaiting();
    await this.sendRevokes();
  }

  /** Who hears that a reached cap waits for a person (the root's Notification hooks). */
  notifyWith(notify: (message: string) => void): void {
    this.notify = notify;
  }

  /** Who holds approvals for a person (the root's tree bookkeeping). */
  askWith(approvals: { hold(request: ApprovalRequest): void; withdraw(requestId: string): void }): void {
    this.approvals = approvals;
  }

  private watchDeadlinesOnce(): void {
    if (this.ledger.nextDeadlineMs() !== undefined) this.watchDeadlines();
  }

  /** Beside the root's loop: stops each subtree whose wall time runs out, also in the middle of a long step. */
  private watchDeadlines(): void {
    if (this.deadlineWatch) return;
    this.deadlineWatch = true;
    void CancellationScope.nonCancellable(async () => {
      while (!this.ended) {
        const next = this.ledger.nextDeadlineMs();
        const seen = this.changes;
        const changed = () => this.ended || this.changes !== seen;
        if (next === undefined) await condition(changed);
        else await condition(changed, Math.max(1, next - workflowNowMs()));
        if (this.ended) return;
        for (const { scopeAgentId, reason } of this.ledger.expired(workflowNowMs())) {
          const action = this.ledger.onCapReached;
          if (action === 'stop' || (action === 'ask' && this.denied.has(scopeAgentId)))
            await this.stopScope?.(scopeAgentId, reason);
          else if (action === 'ask') this.ask(scopeAgentId, 'wallTimeMs', reason);
        }
        await this.answerWaiting();
        await this.sendRevokes();
      }
    });
  }
}

/** A cap raised by half (wall time and counts rounded up to whole units). */
export function raisedCap(cap: CapName, limit: number): number {
  const raised = limit * 1.5;
  return cap === 'costUsd' ? raised : Math.ceil(raised);
}
