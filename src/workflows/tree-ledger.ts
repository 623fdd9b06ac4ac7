import { CancellationScope, condition } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../shared/agent';
import { narrowCaps, type BudgetCaps, type BudgetChange, type BudgetCharge, type BudgetGrant, type BudgetReserveRequest } from '../shared/budget';
import { BudgetLedger, type CarriedLedger } from '../shared/budget-ledger';
import { budgetGrantSignal } from '../shared/definitions';
import { ErrorType, errorText } from '../shared/errors';
import { treeCapsOf } from '../shared/limits';
import { costOfUsage } from '../shared/model-prices';
import { signalBestEffort } from './best-effort-signal';
import { workflowNowMs } from './clock';

/** Marks runs whose model calls reserve from the tree's ledger before they are sent (docs/budgets.md). */
export const budgetLedgerPatch = 'budget-ledger';

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

  /** Why no agent may start under `parentAgentId` now (a cap reached in its chain, or its subtree at its concurrency cap). */
  admission(parentAgentId: string): string | undefined {
    const refusal = this.ledger.admit(parentAgentId);
    return refusal ? errorText(ErrorType.SpawnLimitReached, `${refusal.reason}; no new agents can be started there. Finish with what you have.`) : undefined;
  }

  /** Whether the tree used its ledger (then a continued root carries it). */
  get used(): boolean {
    return this.inUse;
  }

  /** A reservation of an agent of the tree (the root's own included). */
  async reserve(request: BudgetReserveRequest, requesterId: string): Promise<void> {
    this.inUse = true;
    if (this.ledger.nodeRunning(request.agentId) === false) return;
    const decision = this.ledger.decide(request, workflowNowMs());
    if ('wait' in decision) {
      this.ledger.enqueue({ request, requesterId });
      return;
    }
    await this.answer(requesterId, decision);
  }

  /** The root's own call: decided here, waiting in this workflow when it must. */
  async reserveOwn(request: BudgetReserveRequest): Promise<BudgetGrant> {
    this.watchDeadlinesOnce();
    await this.reserve(request, this.input.agentId);
    await condition(() => this.ownGrants.has(request.reservationId));
    const grant = this.ownGrants.get(request.reservationId)!;
    this.ownGrants.delete(request.reservationId);
    return grant;
  }

  async charge(charge: BudgetCharge): Promise<void> {
    this.inUse = true;
    this.ledger.charge(charge);
    await this.answerWaiting();
  }

  /** Changes caps of the tree or a subtree (`subagents budget --set`); waiting calls are looked at again. */
  async change(change: BudgetChange): Promise<BudgetCaps> {
    const caps = this.ledger.setCaps(change.agentId, change.caps);
    this.changes += 1;
    if (caps.wallTimeMs !== undefined) this.watchDeadlines();
    await this.answerWaiting();
    return caps;
  }

  /**
   * The root's tree has closed: waits (a little) for the charges of calls cut by the stop, which their
   * activities send as they end, so the ledger counts what was billed (docs/budgets.md). Then its timer stops.
   */
  async settle(): Promise<void> {
    this.ledger.leave(this.input.agentId);
    if (this.inUse && this.ledger.unsettled > 0) await condition(() => this.ledger.unsettled === 0, settleWait);
    this.ended = true;
  }

  private async answerWaiting(): Promise<void> {
    if (!this.ledger.hasWaiting) return;
    for (const { requesterId, grant } of this.ledger.drain(workflowNowMs())) await this.answer(requesterId, grant);
  }

  private async answer(requesterId: string, grant: BudgetGrant): Promise<void> {
    if (requesterId === this.input.agentId) this.ownGrants.set(grant.reservationId, grant);
    // A requester that is gone needs no answer; its reservation closes when the root learns it ended.
    else await signalBestEffort(requesterId, budgetGrantSignal, grant);
    if (!grant.granted && grant.action === 'stop') await this.stopScope?.(grant.scopeAgentId, grant.reason);
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
          if (this.ledger.onCapReached === 'stop') await this.stopScope?.(scopeAgentId, reason);
        }
        await this.answerWaiting();
      }
    });
  }
}
