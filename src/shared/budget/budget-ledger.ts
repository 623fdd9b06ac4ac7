import { leaseSizeOf, maxTokenCostOf } from './budget-leases';
import { totalTokens, type TokenUsage } from '../model/messages';
import {
  capText,
  hasCaps,
  type BudgetAccount,
  type BudgetAction,
  type BudgetCaps,
  type BudgetCharge,
  type BudgetGrant,
  type BudgetReserveRequest,
  type BudgetSnapshot,
  type CapName,
  type Spending,
} from './budget';

// A tree's ledger: reserve before each call, charge what was billed, release the rest (docs/budgets.md). Pure.

/** Prices a usage in USD; linear in each kind of token (src/shared/model/model-prices.ts). */
export type CostOf = (model: string, usage: TokenUsage) => number;

interface LedgerNode {
  agentId: string;
  parentAgentId?: string;
  caps?: BudgetCaps;
  startedAtMs: number;
  running: boolean;
  own: Spending;
  subtree: Spending;
  reservedTokens: number;
  reservedCostUsd: number;
  /** Calls holding a reservation in the subtree (each will be a turn). */
  reservedCalls: number;
  /** Running agents of the subtree, its own agent included. */
  runningAgents: number;
  exhausted?: string;
  /** A call in this subtree had to wait or was refused: its agents reserve each call exactly, without leases. */
  leasesOff?: boolean;
}

interface Reservation {
  reservationId: string;
  agentId: string;
  model: string;
  inputTokens: number;
  tokens: number;
  costUsd: number;
  /** Attempts already charged. */
  attempts: number[];
  chargedTokens: number;
  /** Charged at its input estimate because its agent ended before the call reported (replaced by the real charge if it comes). */
  presumed?: { tokens: number; costUsd: number };
  /** A lease: room its agent spends on several calls; `tokens` and `costUsd` are what it still holds. */
  lease?: boolean;
  /** The lease was asked back (src/shared/budget/budget-leases.ts): no top-ups; its agent gives back the rest. */
  revoking?: boolean;
  /** A call of a lease counted at its input estimate: the lease it spent from. */
  leaseId?: string;
}

/** A reserve request waiting for room, with who asked (to answer). */
export interface WaitingReserve {
  request: BudgetReserveRequest;
  requesterId: string;
}

/** What the ledger decides for a request now. */
export type ReserveDecision = BudgetGrant | { reservationId: string; wait: true };

/** Everything a continued root carries. */
export interface CarriedLedger {
  nodes: LedgerNode[];
  open: Reservation[];
  closed: string[];
  waiting: WaitingReserve[];
  refusals: number;
  overspendTokens: number;
}

const emptySpending = (): Spending => ({ tokens: 0, costUsd: 0, toolCalls: 0, turns: 0 });
/** Reservation ids remembered after they closed, so a late or repeated charge is not counted twice. */
const maxClosedIds = 4000;
/** Finished leaf nodes a continued root carries at most (their spending stays in their ancestors' totals). */
const maxCarriedFinishedNodes = 1000;

export class BudgetLedger {
  private readonly nodes = new Map<string, LedgerNode>();
  private readonly open = new Map<string, Reservation>();
  private closed: string[] = [];
  private readonly closedSet = new Set<string>();
  private waiting: WaitingReserve[] = [];
  private refusals = 0;
  private overspendTokens = 0;
  /** Which cap exhausted each subtree (the grant names it). */
  private readonly exhaustedCap = new Map<string, CapName>();
  /** Closed at their input estimate when their agent ended first (src/shared/budget/budget-ledger.ts, leave). */
  private readonly presumedReservations = new Map<string, Reservation>();
  /** Leases asked back and not yet told (the root signals their agents). */
  private revokes: { leaseId: string; agentId: string; reason: string; scopeAgentId: string }[] = [];

  constructor(
    private readonly rootAgentId: string,
    rootCaps: BudgetCaps | undefined,
    private readonly action: BudgetAction,
    private readonly costOf: CostOf,
    nowMs: number,
  ) {
    this.nodes.set(rootAgentId, newNode(rootAgentId, undefined, rootCaps, nowMs));
  }

  /** An agent of the tree started (its caps hold for its subtree). */
  join(agentId: string, parentAgentId: string | undefined, caps: BudgetCaps | undefined, nowMs: number): void {
    const existing = this.nodes.get(agentId);
    if (existing?.running) return;
    const parent = parentAgentId !== undefined && this.nodes.has(parentAgentId) ? parentAgentId : this.rootAgentId;
    if (existing) {
      existing.running = true;
      if (hasCaps(caps)) existing.caps = caps;
    } else
      this.nodes.set(agentId, {
        ...newNode(agentId, agentId === this.rootAgentId ? undefined : parent, caps, nowMs),
        runningAgents: 0,
      });
    for (const scope of this.chain(agentId)) scope.runningAgents += 1;
  }

  /** An agent ended: calls it left in flight are charged their input estimate until their own charge comes. */
  leave(agentId: string): void {
    const node = this.nodes.get(agentId);
    if (!node?.running) return;
    node.running = false;
    for (const scope of this.chain(agentId)) scope.runningAgents = Math.max(0, scope.runningAgents - 1);
    for (const reservation of [...this.open.values()])
      if (reservation.agentId === agentId) this.release(reservation.reservationId, reservation.lease === true);
  }

  /** Gives back an unfinished call's reservation; unreported attempts count at the input estimate until charged. */
  release(reservationId: string, unused = false): void {
    const reservation = this.open.get(reservationId);
    if (!reservation) return;
    this.close(reservation);
    if (reservation.attempts.length > 0 || unused || reservation.lease) return;
    const presumed = {
      tokens: reservation.inputTokens,
      costUsd: this.costOf(reservation.model, inputUsage(reservation.inputTokens)),
    };
    this.addSpending(reservation.agentId, { ...presumed, toolCalls: 0, turns: 0 });
    reservation.presumed = presumed;
    this.presumedReservations.set(reservation.reservationId, reservation);
  }

  /** Calls in flight or cut whose activity has not reported yet. */
  get unsettled(): number {
    return this.open.size + this.presumedReservations.size;
  }

  /** Why a new agent may not start under `parentAgentId` (a cap reached, or too many running), or undefined. */
  admit(
    parentAgentId: string,
    starting: readonly string[] = [],
  ): { reason: string; scopeAgentId: string; cap: CapName } | undefined {
    for (const scope of this.chain(parentAgentId)) {
      if (scope.exhausted) return { reason: scope.exhausted, scopeAgentId: scope.agentId, cap: 'tokens' };
      const limit = scope.caps?.concurrentAgents;
      // Agents granted a slot that have not started yet count too (spawns of one turn are granted together).
      const running =
        scope.runningAgents + starting.filter((agentId) => agentId.startsWith(`${scope.agentId}.`)).length;
      if (limit !== undefined && running + 1 > limit) {
        return {
          reason: this.reasonText(scope, 'concurrentAgents', limit, running),
          scopeAgentId: scope.agentId,
          cap: 'concurrentAgents',
        };
      }
    }
    return undefined;
  }

  /** What the tree does when a cap is reached. */
  get onCapReached(): BudgetAction {
    return this.action;
  }

  /** Tokens the tree used before this ledger (a subtree resumed as a root of its own), counted as the root's. */
  openWith(tokens: number): void {
    this.addSpending(this.rootAgentId, { tokens, costUsd: 0, toolCalls: 0, turns: 0 });
  }

  /** The caps of a subtree's own agent (undefined: none of its own). */
  capsOf(agentId: string): BudgetCaps | undefined {
    return this.nodes.get(agentId)?.caps;
  }

  /** Whether the ledger has an account for the agent. */
  knows(agentId: string): boolean {
    return this.nodes.has(agentId);
  }

  /** Whether an agent runs: undefined when the ledger has not heard of it. */
  nodeRunning(agentId: string): boolean | undefined {
    return this.nodes.get(agentId)?.running;
  }

  /** Decides a call's reservation now: granted (and held), wait for room, or refused. */
  decide(request: BudgetReserveRequest, nowMs: number): ReserveDecision {
    if (!this.nodes.has(request.agentId)) this.join(request.agentId, request.parentAgentId, request.caps, nowMs);
    const chain = this.chain(request.agentId);
    if (request.topUp !== undefined) return this.topUp(request, chain, nowMs);
    const lease = this.lease(request, chain, nowMs);
    if (lease) return lease;
    let room = request.maxOutputTokens;
    let limiting: { scope: LedgerNode; cap: CapName; limit: number; used: number } | undefined;
    const inputCost = this.costOf(request.model, inputUsage(request.inputTokens));
    const outputTokenCost = this.costOf(request.model, {
      inputTokens: 0,
      outputTokens: 1,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
    for (const scope of chain) {
      if (scope.exhausted) return this.refuse(request, scope, this.exhaustedCap.get(scope.agentId), scope.exhausted);
      const caps = scope.caps;
      if (!caps) continue;
      if (caps.turns !== undefined && scope.subtree.turns + scope.reservedCalls >= caps.turns) {
        return this.refuse(request, scope, 'turns', this.reasonText(scope, 'turns', caps.turns, scope.subtree.turns));
      }
      if (caps.toolCalls !== undefined && scope.subtree.toolCalls >= caps.toolCalls) {
        return this.refuse(
          request,
          scope,
          'toolCalls',
          this.reasonText(scope, 'toolCalls', caps.toolCalls, scope.subtree.toolCalls),
        );
      }
      if (caps.wallTimeMs !== undefined && nowMs - scope.startedAtMs >= caps.wallTimeMs) {
        return this.refuse(
          request,
          scope,
          'wallTimeMs',
          this.reasonText(scope, 'wallTimeMs', caps.wallTimeMs, nowMs - scope.startedAtMs),
        );
      }
      if (caps.tokens !== undefined) {
        const available = caps.tokens - scope.subtree.tokens - scope.reservedTokens - request.inputTokens;
        if (available < room) {
          room = available;
          limiting = { scope, cap: 'tokens', limit: caps.tokens, used: scope.subtree.tokens };
        }
      }
      if (caps.costUsd !== undefined) {
        const availableUsd = caps.costUsd - scope.subtree.costUsd - scope.reservedCostUsd - inputCost;
        const affordable = outputTokenCost > 0 ? Math.floor(availableUsd / outputTokenCost) : room;
        if (affordable < room) {
          room = affordable;
          limiting = { scope, cap: 'costUsd', limit: caps.costUsd, used: scope.subtree.costUsd };
        }
      }
    }
    const minimum = Math.min(request.minOutputTokens, request.maxOutputTokens);
    if (room < minimum && limiting) {
      const { scope, cap, limit, used } = limiting;
      // The subtree is tight: its agents give their leases back and reserve each call exactly from now on.
      if (!request.ahead) this.leasesOffIn(scope, this.reasonText(scope, cap, limit, used));
      // Calls in flight in the limiting subtree may give back what they do not use.
      if (cap === 'tokens' ? scope.reservedTokens > 0 : scope.reservedCostUsd > 0)
        return { reservationId: request.reservationId, wait: true };
      return this.refuse(request, scope, cap, this.reasonText(scope, cap, limit, used));
    }
    // Half of what is left at most, so calls that start together share the room rather than the first taking it all.
    const outputTokens = limiting
      ? Math.min(request.maxOutputTokens, Math.max(minimum, Math.floor(room / 2)))
      : request.maxOutputTokens;
    const tokens = request.inputTokens + outputTokens;
    const costUsd = inputCost + outputTokenCost * outputTokens;
    this.open.set(request.reservationId, {
      reservationId: request.reservationId,
      agentId: request.agentId,
      model: request.model,
      inputTokens: request.inputTokens,
      tokens,
      costUsd,
      attempts: [],
      chargedTokens: 0,
    });
    this.hold(chain, tokens, costUsd, 1);
    return { reservationId: request.reservationId, granted: true, outputTokens, reservedTokens: tokens };
  }

  /** Holds a request that must wait for room. */
  enqueue(waiting: WaitingReserve): void {
    if (!this.waiting.some((entry) => entry.request.reservationId === waiting.request.reservationId))
      this.waiting.push(waiting);
  }

  /** Decides every waiting request that can be decided now (after a charge, a leave or a change of caps). */
  drain(nowMs: number): (WaitingReserve & { grant: BudgetGrant })[] {
    const answers: (WaitingReserve & { grant: BudgetGrant })[] = [];
    const still: WaitingReserve[] = [];
    for (const entry of this.waiting) {
      const node = this.nodes.get(entry.request.agentId);
      const decision =
        node && !node.running && entry.request.agentId !== this.rootAgentId
          ? this.refuse(entry.request, node, undefined, 'the agent has ended')
          : this.decide(entry.request, nowMs);
      if ('wait' in decision) still.push(entry);
      else answers.push({ ...entry, grant: decision });
    }
    this.waiting = still;
    return answers;
  }

  /** Charges one attempt of a call; a repeated report of the same attempt changes nothing. */
  charge(charge: BudgetCharge): void {
    if (charge.leaseId !== undefined && charge.leaseId !== charge.reservationId) {
      this.chargeLeaseCall(charge);
      if (charge.endsLease && this.open.get(charge.leaseId)?.agentId === charge.agentId)
        this.release(charge.leaseId, true);
      return;
    }
    const reservation = this.open.get(charge.reservationId) ?? this.presumedReservations.get(charge.reservationId);
    if (!reservation) {
      // A call the ledger never reserved (or forgot after a long time): counted, never twice.
      const key = `${charge.reservationId}@${charge.attempt}`;
      if (this.closedSet.has(key) || !this.nodes.has(charge.agentId)) return;
      this.remember(key);
      this.addSpending(charge.agentId, this.spendingOf(charge));
      return;
    }
    // Only the agent a reservation is for charges or releases it.
    if (reservation.agentId !== charge.agentId) return;
    // The workflow's release of a call that did not complete (attempt 0 carries no usage).
    if (charge.attempt === 0) {
      if (charge.final) this.release(reservation.reservationId, charge.unused === true);
      return;
    }
    if (reservation.attempts.includes(charge.attempt)) {
      if (charge.final && this.open.has(reservation.reservationId)) this.close(reservation);
      return;
    }
    // A call is a turn once it was sent: counted with its first charge.
    const firstCharge = reservation.attempts.length === 0;
    reservation.attempts.push(charge.attempt);
    if (!this.open.has(reservation.reservationId)) this.remember(`${reservation.reservationId}@${charge.attempt}`);
    if (reservation.presumed) {
      // The real charge replaces the estimate made when its call was given back.
      this.addSpending(reservation.agentId, {
        tokens: -reservation.presumed.tokens,
        costUsd: -reservation.presumed.costUsd,
        toolCalls: 0,
        turns: 0,
      });
      reservation.presumed = undefined;
      this.presumedReservations.delete(reservation.reservationId);
    }
    const spending = { ...this.spendingOf(charge), turns: firstCharge ? 1 : 0 };
    this.addSpending(reservation.agentId, spending);
    const before = Math.max(reservation.chargedTokens, reservation.tokens);
    reservation.chargedTokens += spending.tokens;
    if (reservation.chargedTokens > before) this.overspendTokens += reservation.chargedTokens - before;
    if (charge.final && this.open.has(reservation.reservationId)) this.close(reservation);
  }

  /** Sets caps of a subtree (the root's when agentId is absent); a raised cap lifts the subtree's exhaustion. */
  setCaps(agentId: string | undefined, caps: BudgetCaps): BudgetCaps {
    const node = this.nodes.get(agentId ?? this.rootAgentId);
    if (!node) throw new Error(`No agent "${agentId}" in the tree ${this.rootAgentId}.`);
    node.caps = { ...node.caps, ...caps };
    node.exhausted = undefined;
    // Leases were sized for the caps before: taken back, and given again under the new ones.
    this.revokeLeasesIn(node, 'the caps changed');
    node.leasesOff = undefined;
    return node.caps;
  }

  /** Marks a subtree exhausted (its agents are being stopped or finishing). */
  markExhausted(agentId: string, reason: string): void {
    const node = this.nodes.get(agentId);
    if (node && !node.exhausted) {
      node.exhausted = reason;
      this.leasesOffIn(node, reason);
    }
  }

  /** Running subtrees whose wall time has run out, marked exhausted, with the reason. */
  expired(nowMs: number): { scopeAgentId: string; reason: string }[] {
    const expired: { scopeAgentId: string; reason: string }[] = [];
    for (const node of this.nodes.values()) {
      const limit = node.caps?.wallTimeMs;
      if (limit === undefined || node.exhausted || node.runningAgents === 0 || nowMs - node.startedAtMs < limit)
        continue;
      node.exhausted = this.reasonText(node, 'wallTimeMs', limit, nowMs - node.startedAtMs);
      this.exhaustedCap.set(node.agentId, 'wallTimeMs');
      this.leasesOffIn(node, node.exhausted);
      expired.push({ scopeAgentId: node.agentId, reason: node.exhausted });
    }
    return expired;
  }

  /** When the next wall-time cap of a running subtree runs out, if any. */
  nextDeadlineMs(): number | undefined {
    let next: number | undefined;
    for (const node of this.nodes.values()) {
      const limit = node.caps?.wallTimeMs;
      if (limit === undefined || node.exhausted || node.runningAgents === 0) continue;
      const deadline = node.startedAtMs + limit;
      if (next === undefined || deadline < next) next = deadline;
    }
    return next;
  }

  /** Running agents of a subtree (itself included), deepest first. */
  runningIn(scopeAgentId: string): string[] {
    return [...this.nodes.values()]
      .filter((node) => node.running && (node.agentId === scopeAgentId || node.agentId.startsWith(`${scopeAgentId}.`)))
      .sort((left, right) => depthOf(right.agentId) - depthOf(left.agentId))
      .map((node) => node.agentId);
  }

  /** The exhaustion of a subtree or of any scope above it, if any. */
  exhaustionOf(agentId: string): string | undefined {
    return this.chain(agentId).find((scope) => scope.exhausted)?.exhausted;
  }

  /** The tree's total spending. */
  get total(): Spending {
    return { ...this.nodeOf(this.rootAgentId).subtree };
  }

  get hasWaiting(): boolean {
    return this.waiting.length > 0;
  }

  snapshot(): BudgetSnapshot {
    return {
      rootAgentId: this.rootAgentId,
      action: this.action,
      accounts: [...this.nodes.values()].map((node): BudgetAccount => ({
        agentId: node.agentId,
        ...(node.parentAgentId ? { parentAgentId: node.parentAgentId } : {}),
        ...(hasCaps(node.caps) ? { caps: node.caps } : {}),
        own: { ...node.own },
        subtree: { ...node.subtree },
        reservedTokens: node.reservedTokens,
        reservedCostUsd: node.reservedCostUsd,
        startedAtMs: node.startedAtMs,
        running: node.running,
        ...(node.exhausted ? { exhausted: node.exhausted } : {}),
      })),
      waiting: this.waiting.length,
      refusals: this.refusals,
      overspendTokens: this.overspendTokens,
      leases: this.leaseTotals(),
    };
  }

  /** Leases asked back since the last call, for the root to tell their agents (taken). */
  takeRevokes(): { leaseId: string; agentId: string; reason: string; scopeAgentId: string }[] {
    const revokes = this.revokes;
    this.revokes = [];
    return revokes;
  }

  private leaseTotals(): { held: number; tokens: number } {
    const leases = [...this.open.values()].filter((reservation) => reservation.lease);
    return { held: leases.length, tokens: leases.reduce((sum, lease) => sum + lease.tokens, 0) };
  }

  /** A new lease when asked and the chain has room to spare; undefined: reserve the call exactly. */
  private lease(request: BudgetReserveRequest, chain: LedgerNode[], nowMs: number): BudgetGrant | undefined {
    const tokens = this.leaseRoom(request, chain, nowMs);
    if (tokens === undefined) return undefined;
    const costUsd = tokens * maxTokenCostOf(this.costOf, request.model);
    this.open.set(request.reservationId, {
      reservationId: request.reservationId,
      agentId: request.agentId,
      model: request.model,
      inputTokens: 0,
      tokens,
      costUsd,
      attempts: [],
      chargedTokens: 0,
      lease: true,
    });
    this.hold(chain, tokens, costUsd, 0);
    return {
      reservationId: request.reservationId,
      granted: true,
      outputTokens: request.maxOutputTokens,
      reservedTokens: tokens,
      leaseId: request.reservationId,
    };
  }

  /** More room for an agent's lease, or a plain no (its agent spends the rest, then reserves exactly). */
  private topUp(request: BudgetReserveRequest, chain: LedgerNode[], nowMs: number): BudgetGrant {
    const lease = this.open.get(request.topUp!);
    const tokens =
      lease?.lease && !lease.revoking && lease.agentId === request.agentId
        ? this.leaseRoom(request, chain, nowMs)
        : undefined;
    if (!lease || tokens === undefined) {
      return {
        reservationId: request.reservationId,
        granted: false,
        reason: 'no more room is leased now',
        scopeAgentId: request.agentId,
        cap: 'tokens',
        action: this.action,
      };
    }
    const costUsd = tokens * maxTokenCostOf(this.costOf, request.model);
    lease.tokens += tokens;
    lease.costUsd += costUsd;
    this.hold(chain, tokens, costUsd, 0);
    return {
      reservationId: request.reservationId,
      granted: true,
      outputTokens: request.maxOutputTokens,
      reservedTokens: tokens,
      leaseId: lease.reservationId,
    };
  }

  /** Tokens a lease may hold for this request now, or undefined: none asked, the chain not leasable, or too little room. */
  private leaseRoom(request: BudgetReserveRequest, chain: LedgerNode[], nowMs: number): number | undefined {
    if (request.leaseTokens === undefined || request.leaseTokens <= 0) return undefined;
    const maxTokenCost = maxTokenCostOf(this.costOf, request.model);
    const scopes = chain.map((scope) => ({
      leasable:
        !scope.exhausted &&
        !scope.leasesOff &&
        scope.caps?.turns === undefined &&
        scope.caps?.toolCalls === undefined &&
        (scope.caps?.wallTimeMs === undefined || nowMs - scope.startedAtMs < scope.caps.wallTimeMs),
      tokens:
        scope.caps?.tokens === undefined ? undefined : scope.caps.tokens - scope.subtree.tokens - scope.reservedTokens,
      costTokens:
        scope.caps?.costUsd === undefined || maxTokenCost <= 0
          ? undefined
          : Math.floor((scope.caps.costUsd - scope.subtree.costUsd - scope.reservedCostUsd) / maxTokenCost),
      runningAgents: scope.runningAgents,
    }));
    return leaseSizeOf(scopes, request.leaseTokens, request.inputTokens + request.maxOutputTokens);
  }

  /** One attempt of a call spent from a lease (or the release of one that did not report: attempt 0). */
  private chargeLeaseCall(charge: BudgetCharge): void {
    const callId = charge.reservationId;
    const turnKey = `${callId}@turn`;
    if (charge.attempt === 0) {
      // Given back before it reported: counted at its input estimate until its own charge comes.
      const input = charge.presumedInputTokens ?? 0;
      if (
        input <= 0 ||
        this.closedSet.has(turnKey) ||
        this.presumedReservations.has(callId) ||
        !this.nodes.has(charge.agentId)
      )
        return;
      const presumed = { tokens: input, costUsd: this.costOf(charge.model, inputUsage(input)) };
      this.addSpending(charge.agentId, { ...presumed, toolCalls: 0, turns: 0 });
      this.absorb(charge.leaseId!, charge.agentId, presumed.tokens, presumed.costUsd);
      this.presumedReservations.set(callId, {
        reservationId: callId,
        agentId: charge.agentId,
        model: charge.model,
        inputTokens: input,
        tokens: 0,
        costUsd: 0,
        attempts: [],
        chargedTokens: 0,
        presumed,
        leaseId: charge.leaseId!,
      });
      return;
    }
    const key = `${callId}@${charge.attempt}`;
    if (this.closedSet.has(key) || !this.nodes.has(charge.agentId)) return;
    this.remember(key);
    const firstCharge = !this.closedSet.has(turnKey);
    if (firstCharge) this.remember(turnKey);
    const spending = { ...this.spendingOf(charge), turns: firstCharge ? 1 : 0 };
    const presumedCall = this.presumedReservations.get(callId);
    let beyondPresumed = { tokens: spending.tokens, costUsd: spending.costUsd };
    if (presumedCall?.presumed) {
      // The real charge replaces the estimate; the lease gave the estimate already.
      const { tokens, costUsd } = presumedCall.presumed;
      this.addSpending(charge.agentId, { tokens: -tokens, costUsd: -costUsd, toolCalls: 0, turns: 0 });
      beyondPresumed = {
        tokens: Math.max(0, spending.tokens - tokens),
        costUsd: Math.max(0, spending.costUsd - costUsd),
      };
      this.presumedReservations.delete(callId);
    }
    this.addSpending(charge.agentId, spending);
    this.absorb(charge.leaseId!, charge.agentId, beyondPresumed.tokens, beyondPresumed.costUsd);
  }

  /** What a lease's call spent comes out of what the lease holds; beyond it (or once it closed) is overspend. */
  private absorb(leaseId: string, agentId: string, tokens: number, costUsd: number): void {
    const lease = this.open.get(leaseId);
    // Only the lease's own agent spends from it.
    if (!lease?.lease || lease.agentId !== agentId) {
      this.overspendTokens += tokens;
      return;
    }
    const takenTokens = Math.min(lease.tokens, tokens);
    const takenCost = Math.min(lease.costUsd, costUsd);
    lease.tokens -= takenTokens;
    lease.costUsd -= takenCost;
    this.overspendTokens += tokens - takenTokens;
    for (const scope of this.chain(lease.agentId)) {
      scope.reservedTokens = Math.max(0, scope.reservedTokens - takenTokens);
      scope.reservedCostUsd = Math.max(0, scope.reservedCostUsd - takenCost);
    }
  }

  /** The subtree is tight or capped: no new leases there, and the ones its agents hold are asked back. */
  private leasesOffIn(scope: LedgerNode, reason: string): void {
    scope.leasesOff = true;
    this.revokeLeasesIn(scope, reason);
  }

  private revokeLeasesIn(scope: LedgerNode, reason: string): void {
    for (const lease of this.open.values()) {
      if (
        !lease.lease ||
        lease.revoking ||
        !(lease.agentId === scope.agentId || lease.agentId.startsWith(`${scope.agentId}.`))
      )
        continue;
      lease.revoking = true;
      this.revokes.push({ leaseId: lease.reservationId, agentId: lease.agentId, reason, scopeAgentId: scope.agentId });
    }
  }

  private hold(chain: LedgerNode[], tokens: number, costUsd: number, calls: number): void {
    for (const scope of chain) {
      scope.reservedTokens += tokens;
      scope.reservedCostUsd += costUsd;
      scope.reservedCalls += calls;
    }
  }

  carry(): CarriedLedger {
    const finished = [...this.nodes.values()].filter((node) => !node.running && node.agentId !== this.rootAgentId);
    const dropped = new Set(
      finished.slice(0, Math.max(0, finished.length - maxCarriedFinishedNodes)).map((node) => node.agentId),
    );
    return {
      nodes: [...this.nodes.values()].filter((node) => !dropped.has(node.agentId)).map((node) => structuredCopy(node)),
      open: [...this.open.values(), ...this.presumedReservations.values()].map((reservation) =>
        structuredCopy(reservation),
      ),
      closed: [...this.closed],
      waiting: [...this.waiting],
      refusals: this.refusals,
      overspendTokens: this.overspendTokens,
    };
  }

  restore(carried: CarriedLedger): void {
    this.nodes.clear();
    for (const node of carried.nodes) this.nodes.set(node.agentId, structuredCopy(node));
    for (const reservation of carried.open) {
      if (reservation.presumed) this.presumedReservations.set(reservation.reservationId, structuredCopy(reservation));
      else this.open.set(reservation.reservationId, structuredCopy(reservation));
    }
    for (const id of carried.closed) this.remember(id);
    this.waiting = [...carried.waiting];
    this.refusals = carried.refusals;
    this.overspendTokens = carried.overspendTokens;
  }

  private refuse(
    request: BudgetReserveRequest,
    scope: LedgerNode,
    cap: CapName | undefined,
    reason: string,
  ): BudgetGrant {
    // A request asked ahead is only told no: the call itself asks again with its exact size.
    if (!request.ahead) {
      this.refusals += 1;
      if (!scope.exhausted && cap) this.exhaustedCap.set(scope.agentId, cap);
      scope.exhausted ??= reason;
      this.leasesOffIn(scope, reason);
    }
    return {
      reservationId: request.reservationId,
      granted: false,
      reason,
      scopeAgentId: scope.agentId,
      cap: cap ?? 'tokens',
      action: this.action,
    };
  }

  private reasonText(scope: LedgerNode, cap: CapName, limit: number, used: number): string {
    const whose = scope.agentId === this.rootAgentId ? "the tree's" : `the subtree of ${scope.agentId}'s`;
    return `${whose} budget of ${capText(cap, limit, used)}`;
  }

  private close(reservation: Reservation): void {
    this.open.delete(reservation.reservationId);
    for (const attempt of reservation.attempts) this.remember(`${reservation.reservationId}@${attempt}`);
    for (const scope of this.chain(reservation.agentId)) {
      scope.reservedTokens = Math.max(0, scope.reservedTokens - reservation.tokens);
      scope.reservedCostUsd = Math.max(0, scope.reservedCostUsd - reservation.costUsd);
      if (!reservation.lease) scope.reservedCalls = Math.max(0, scope.reservedCalls - 1);
    }
  }

  private remember(id: string): void {
    this.closed.push(id);
    this.closedSet.add(id);
    if (this.closed.length > maxClosedIds)
      for (const old of this.closed.splice(0, this.closed.length - maxClosedIds)) this.closedSet.delete(old);
  }

  private spendingOf(charge: BudgetCharge): Spending {
    return {
      tokens: totalTokens(charge.usage),
      costUsd: this.costOf(charge.model, charge.usage),
      toolCalls: charge.toolCalls ?? 0,
      turns: 0,
    };
  }

  private addSpending(agentId: string, spending: Spending): void {
    add(this.nodeOf(agentId).own, spending);
    for (const scope of this.chain(agentId)) add(scope.subtree, spending);
  }

  private nodeOf(agentId: string): LedgerNode {
    return this.nodes.get(agentId) ?? this.nodes.get(this.rootAgentId)!;
  }

  /** The agent's node and each above it up to the root. */
  private chain(agentId: string): LedgerNode[] {
    const chain: LedgerNode[] = [];
    let node: LedgerNode | undefined = this.nodes.get(agentId) ?? this.nodes.get(this.rootAgentId);
    while (node && chain.length < 64) {
      chain.push(node);
      node = node.parentAgentId !== undefined ? this.nodes.get(node.parentAgentId) : undefined;
    }
    return chain;
  }
}

function newNode(
  agentId: string,
  parentAgentId: string | undefined,
  caps: BudgetCaps | undefined,
  nowMs: number,
): LedgerNode {
  return {
    agentId,
    ...(parentAgentId !== undefined ? { parentAgentId } : {}),
    ...(hasCaps(caps) ? { caps } : {}),
    startedAtMs: nowMs,
    running: true,
    own: emptySpending(),
    subtree: emptySpending(),
    reservedTokens: 0,
    reservedCostUsd: 0,
    reservedCalls: 0,
    runningAgents: 1,
  };
}

function add(into: Spending, spending: Spending): void {
  into.tokens += spending.tokens;
  into.costUsd += spending.costUsd;
  into.toolCalls += spending.toolCalls;
  into.turns += spending.turns;
}

function inputUsage(inputTokens: number): TokenUsage {
  return { inputTokens, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
}

function depthOf(agentId: string): number {
  return agentId.split('.').length;
}

function structuredCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
