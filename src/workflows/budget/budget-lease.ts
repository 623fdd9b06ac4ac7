import type { BudgetGrant } from '../../shared/budget/budget';

/** A call spending from the lease: its room, and its input estimate (counted if it is cut before it reports). */
interface LeaseCall {
  callId: string;
  tokens: number;
  inputTokens: number;
}

interface HeldLease {
  leaseId: string;
  /** Tokens the root has leased, top-ups included. */
  granted: number;
  /** Tokens the lease's calls spent, counted high: a call retried or cut spends all its room. */
  used: number;
  call?: LeaseCall;
  /** The root asked it back: given back once no call of it is in flight. */
  revoked: boolean;
  /** A top-up asked and not answered yet. */
  topUp?: string;
  /** A top-up was refused: the lease is spent down, then the agent reserves exactly. */
  topUpRefused: boolean;
}

/**
 * An agent's lease of its tree's budget (docs/budgets.md, Leases): room the root granted ahead, which
 * the agent's model calls spend without asking, one call at a time. The root holds the lease in its
 * ledger until the agent gives it back, so what the agent counts here never exceeds what the root holds.
 */
export class LeaseAccount {
  private held?: HeldLease;

  /** The lease held, if any. */
  get leaseId(): string | undefined {
    return this.held?.leaseId;
  }

  /** Room left for calls (0 without a lease, or when the root asked it back). */
  get available(): number {
    const held = this.held;
    if (!held || held.revoked || held.call) return 0;
    return Math.max(0, held.granted - held.used);
  }

  /** A top-up was asked and is on its way. */
  get toppingUp(): boolean {
    return this.held?.topUp !== undefined;
  }

  /** Whether a top-up may be asked now. */
  get mayTopUp(): boolean {
    const held = this.held;
    return held !== undefined && !held.revoked && !held.topUpRefused && held.topUp === undefined;
  }

  get revoked(): boolean {
    return this.held?.revoked === true;
  }

  /** A lease the root granted (a new one replaces none: an agent holds one at most). */
  hold(leaseId: string, tokens: number): void {
    this.held = { leaseId, granted: tokens, used: 0, revoked: false, topUpRefused: false };
  }

  /** Room for one call, taken from the lease when it covers it. */
  take(call: LeaseCall): boolean {
    if (this.available < call.tokens) return false;
    this.held!.call = call;
    return true;
  }

  /** The call answered: what it spent (all its room when it was retried: earlier attempts' bills are not known here). */
  settled(spentTokens: number): void {
    const held = this.held;
    if (!held?.call) return;
    held.used += Math.max(0, spentTokens);
    held.call = undefined;
  }

  /** The call did not complete: its room counts as spent; returns the call, for its release. */
  cut(): LeaseCall | undefined {
    const held = this.held;
    const call = held?.call;
    if (!held || !call) return undefined;
    held.used += call.tokens;
    held.call = undefined;
    return call;
  }

  /** A top-up asked of the root, its answer to come as a grant. */
  askedTopUp(reservationId: string): void {
    if (this.held) this.held.topUp = reservationId;
  }

  /** A top-up that could not be asked (the root has ended): none is waited for. */
  topUpFailed(): void {
    if (!this.held) return;
    this.held.topUp = undefined;
    this.held.topUpRefused = true;
  }

  /** Ends the lease here; returns its id, for the release the root must get. */
  drop(): string | undefined {
    const leaseId = this.held?.leaseId;
    this.held = undefined;
    return leaseId;
  }

  /**
   * A grant about this lease: a top-up's answer, or the root asking it back. Returns whether it was about
   * the lease, and whether the agent is to give the lease back now (asked back, no call in flight).
   */
  receive(grant: BudgetGrant): { handled: boolean; giveBack: boolean } {
    const held = this.held;
    if (!held) return { handled: false, giveBack: false };
    if (!grant.granted && grant.revoked === true && grant.reservationId === held.leaseId) {
      held.revoked = true;
      return { handled: true, giveBack: held.call === undefined };
    }
    if (grant.reservationId !== held.topUp) return { handled: false, giveBack: false };
    held.topUp = undefined;
    if (grant.granted && grant.leaseId === held.leaseId) held.granted += grant.reservedTokens;
    else held.topUpRefused = true;
    return { handled: true, giveBack: false };
  }
}
