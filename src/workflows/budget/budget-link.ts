import { condition, workflowInfo, type SignalDefinition } from '@temporalio/workflow';
import type { BudgetCharge, BudgetGrant, BudgetReserveRequest } from '../../shared/budget/budget';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import { budgetChargeSignal, budgetReserveSignal } from '../../shared/protocol/definitions';
import { emptyTokenUsage } from '../../shared/model/messages';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { LeaseAccount } from './budget-lease';
import { TreeLedgerKeeper } from './tree-ledger';

/**
 * One agent's link to its tree's ledger (docs/budgets.md): the root holds the ledger and decides its
 * own calls locally; every other agent asks it by signal and keeps the answers, its lease and the room
 * asked ahead for its next call.
 */
export class BudgetLink {
  /** The tree's ledger: present on the root only. */
  readonly ledger?: TreeLedgerKeeper;
  private readonly grants = new Map<string, BudgetGrant>();
  /** Leases the root asked back before their grant arrived (src/workflows/budget/budget-lease.ts). */
  private readonly earlyRevokes = new Map<string, BudgetGrant>();
  /** Room leased from the tree's budget, spent by this agent's calls without asking (src/workflows/budget/budget-lease.ts). */
  readonly lease = new LeaseAccount();
  private reservations = 0;
  /** The reservation asked ahead for the next call (src/workflows/budget/model-budget.ts). */
  private ahead?: string;

  constructor(private readonly input: AgentWorkflowInput) {
    // The root of a tree is its own root: a tree's first agent, or a subagent resumed after its whole tree had ended.
    this.ledger = input.rootAgentId === input.agentId ? new TreeLedgerKeeper(input) : undefined;
  }

  /** The root's answer to a reservation of one of this agent's model calls. */
  receiveGrant(grant: BudgetGrant): void {
    const { handled, giveBack } = this.lease.receive(grant);
    if (giveBack) void this.releaseLease();
    if (handled) return;
    if (!grant.granted && grant.revoked === true && !this.grants.has(grant.reservationId)) {
      // Signals may arrive out of order: asked back before its grant came (or after it was given back), it is kept for the grant.
      this.earlyRevokes.set(grant.reservationId, grant);
      return;
    }
    const revoke =
      grant.granted && grant.leaseId === grant.reservationId ? this.earlyRevokes.get(grant.reservationId) : undefined;
    if (revoke) this.earlyRevokes.delete(grant.reservationId);
    // A lease grant whose revoke came first is read as the revoke: its agent gives it back.
    this.grants.set(grant.reservationId, revoke ?? grant);
  }

  /** Gives the rest of this agent's lease back to the tree (it holds none after). */
  async releaseLease(): Promise<void> {
    const leaseId = this.lease.drop();
    if (leaseId !== undefined) await this.releaseModelCall(leaseId, this.input.model, true);
  }

  /** Charges a call of the lease without waiting; with a top-up of the lease asked in the same signal when given. */
  chargeLeaseCall(charge: BudgetCharge, topUp?: BudgetReserveRequest): void {
    if (!topUp) {
      void this.signalRoot(budgetChargeSignal, charge);
      return;
    }
    this.lease.askedTopUp(topUp.reservationId);
    void this.signalRoot(budgetReserveSignal, { request: topUp, requesterId: this.input.agentId, settle: charge }).then(
      (delivered) => {
        if (!delivered) this.lease.topUpFailed();
      },
    );
  }

  /** A tree-unique id for this agent's next model call. */
  nextReservationId(): string {
    this.reservations += 1;
    return `${this.input.agentId}/${workflowInfo().runId.slice(0, 8)}/${this.reservations}`;
  }

  /** Reserves room for one model call in the tree's ledger; waits while calls in flight may give room back. */
  async reserveModelCall(request: BudgetReserveRequest): Promise<BudgetGrant> {
    if (this.ledger) return this.ledger.reserveOwn(request);
    const delivered = await this.signalRoot(budgetReserveSignal, { request, requesterId: this.input.agentId });
    if (!delivered) return this.rootEnded(request.reservationId);
    return this.rootGrant(request.reservationId);
  }

  /**
   * Asks, without waiting, for the next call's room while this turn's tools run, and charges the call
   * that just answered with it (docs/budgets.md): the next call finds its answer already there.
   */
  reserveAhead(request: BudgetReserveRequest, settle: BudgetCharge): void {
    this.ahead = request.reservationId;
    if (!this.ledger) {
      void this.signalRoot(budgetReserveSignal, { request, requesterId: this.input.agentId, settle }).then(
        (delivered) => {
          if (!delivered) this.grants.set(request.reservationId, this.rootEnded(request.reservationId));
        },
      );
    } else void this.ledger.requestOwn(request, settle);
  }

  /** The reservation asked ahead for this call, if any (taken: the next call asks anew). */
  takeAhead(): string | undefined {
    const ahead = this.ahead;
    this.ahead = undefined;
    return ahead;
  }

  /** The root's answer to a reservation of this agent, once it is there. */
  async grantOf(reservationId: string): Promise<BudgetGrant> {
    if (this.ledger) return this.ledger.ownGrant(reservationId);
    return this.rootGrant(reservationId);
  }

  /** The root's answer to a reservation of this agent (not the root), once its signal is there. */
  private async rootGrant(reservationId: string): Promise<BudgetGrant> {
    await condition(() => this.grants.has(reservationId));
    const grant = this.grants.get(reservationId)!;
    this.grants.delete(reservationId);
    return grant;
  }

  /** The root's answer to a reservation if it has come (taken), without waiting. */
  answeredGrant(reservationId: string): BudgetGrant | undefined {
    const grant = this.ledger ? this.ledger.takeOwnGrant(reservationId) : this.grants.get(reservationId);
    this.grants.delete(reservationId);
    return grant;
  }

  /** Charges the ledger (a call that answered, or the release of one that did not: attempt 0). */
  async chargeModelCall(charge: BudgetCharge): Promise<void> {
    if (this.ledger) await this.ledger.charge(charge);
    else await this.signalRoot(budgetChargeSignal, charge);
  }

  /** Gives back a reservation whose call did not complete (the call's own charges, if any, came from its activity). */
  async releaseModelCall(
    reservationId: string,
    model: string,
    unused = false,
    ofLease?: Pick<BudgetCharge, 'leaseId' | 'presumedInputTokens' | 'endsLease'>,
  ): Promise<void> {
    await this.chargeModelCall({
      reservationId,
      agentId: this.input.agentId,
      model,
      attempt: 0,
      usage: emptyTokenUsage(),
      final: true,
      ...(unused ? { unused } : {}),
      ...(ofLease?.leaseId !== undefined ? { leaseId: ofLease.leaseId } : {}),
      ...(ofLease?.presumedInputTokens !== undefined ? { presumedInputTokens: ofLease.presumedInputTokens } : {}),
      ...(ofLease?.endsLease ? { endsLease: true } : {}),
    });
  }

  private rootEnded(reservationId: string): BudgetGrant {
    const reason = `the tree's root ${this.input.rootAgentId} has ended`;
    return {
      reservationId,
      granted: false,
      reason,
      scopeAgentId: this.input.rootAgentId,
      cap: 'tokens',
      action: 'finish',
    };
  }

  /** Every signal to the root goes out best effort: the root may already have ended. */
  private signalRoot<Payload>(signal: SignalDefinition<[Payload]>, payload: Payload): Promise<boolean> {
    return signalBestEffort(this.input.rootAgentId, signal, payload);
  }
}
