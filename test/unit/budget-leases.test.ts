import { describe, expect, it } from 'vitest';
import type { BudgetCaps, BudgetCharge, BudgetGrant, BudgetReserveRequest } from '../../src/shared/budget/budget';
import { BudgetLedger } from '../../src/shared/budget/budget-ledger';
import { leaseSizeOf, maxTokenCostOf } from '../../src/shared/budget/budget-leases';
import type { TokenUsage } from '../../src/shared/model/messages';
import { costOf, tokenRefusal, usage } from '../helpers/unit-budget';
import { LeaseAccount } from '../../src/workflows/budget/budget-lease';

let ids = 0;
function leaseRequest(
  agentId: string,
  inputTokens: number,
  maxOutputTokens: number,
  extra: Partial<BudgetReserveRequest> = {},
): BudgetReserveRequest {
  ids += 1;
  return {
    reservationId: `${agentId}/${ids}`,
    agentId,
    model: 'm',
    inputTokens,
    maxOutputTokens,
    minOutputTokens: 100,
    leaseTokens: 4 * (inputTokens + maxOutputTokens),
    ...extra,
  };
}
function callCharge(
  agentId: string,
  leaseId: string,
  callId: string,
  tokens: TokenUsage,
  extra: Partial<BudgetCharge> = {},
): BudgetCharge {
  return {
    reservationId: callId,
    agentId,
    model: 'm',
    attempt: 1,
    usage: tokens,
    toolCalls: 1,
    final: true,
    leaseId,
    ...extra,
  };
}
/** The give-back of what is left of `leaseId`: attempt 0, nothing spent. */
function unusedRest(leaseId: string, agentId: string): BudgetCharge {
  return { reservationId: leaseId, agentId, model: 'm', attempt: 0, usage: usage(0, 0), final: true, unused: true };
}
function ledgerWith(caps: BudgetCaps | undefined, children: string[]): BudgetLedger {
  const ledger = new BudgetLedger('root', caps, 'stop', costOf, 0);
  for (const child of children) ledger.join(child, 'root', undefined, 0);
  return ledger;
}
const granted = (grant: BudgetGrant | { wait: true }) => {
  if (!('granted' in grant) || !grant.granted) throw new Error(`not granted: ${JSON.stringify(grant)}`);
  return grant;
};
const rootAccount = (ledger: BudgetLedger) => ledger.snapshot().accounts.find((account) => account.agentId === 'root')!;

describe('leases of the tree budget', () => {
  it('sizes a lease at most a share of each capped scope, and not at all when it would not cover the call', () => {
    expect(leaseSizeOf([{ leasable: true, runningAgents: 3 }], 40_000, 10_000)).toBe(40_000);
    // 1,000,000 left between twice 5 running agents: 100,000 at most.
    expect(leaseSizeOf([{ leasable: true, tokens: 1_000_000, runningAgents: 5 }], 400_000, 10_000)).toBe(100_000);
    // The cost cap's room counts as well as the token cap's.
    expect(
      leaseSizeOf([{ leasable: true, tokens: 1_000_000, costTokens: 60_000, runningAgents: 1 }], 400_000, 10_000),
    ).toBe(30_000);
    expect(leaseSizeOf([{ leasable: true, tokens: 30_000, runningAgents: 2 }], 40_000, 10_000)).toBeUndefined();
    expect(
      leaseSizeOf(
        [
          { leasable: true, runningAgents: 1 },
          { leasable: false, runningAgents: 4 },
        ],
        40_000,
        10_000,
      ),
    ).toBeUndefined();
    expect(leaseSizeOf([{ leasable: true, tokens: -5, runningAgents: 1 }], 40_000, 1)).toBeUndefined();
  });

  it('prices a leased token at the dearest kind', () => {
    expect(maxTokenCostOf(costOf, 'm')).toBe(2);
  });

  it('leases room when the budget has plenty, holds it against the cap, and spends it by the calls charged', () => {
    const ledger = ledgerWith({ tokens: 1_000_000 }, ['root.1']);
    const request = leaseRequest('root.1', 1000, 4000);
    const grant = granted(ledger.decide(request, 0));
    expect(grant).toMatchObject({ leaseId: request.reservationId, reservedTokens: 20_000, outputTokens: 4000 });
    expect(rootAccount(ledger).reservedTokens).toBe(20_000);
    ledger.charge(callCharge('root.1', grant.leaseId!, 'call-1', usage(1000, 500)));
    expect(rootAccount(ledger)).toMatchObject({
      reservedTokens: 18_500,
      subtree: { tokens: 1500, turns: 1, toolCalls: 1 },
    });
    // The same attempt reported twice counts once.
    ledger.charge(callCharge('root.1', grant.leaseId!, 'call-1', usage(1000, 500)));
    expect(rootAccount(ledger).subtree.tokens).toBe(1500);
    // Given back: the rest of the lease returns, what was spent stays.
    ledger.charge(unusedRest(grant.leaseId!, 'root.1'));
    expect(rootAccount(ledger)).toMatchObject({ reservedTokens: 0, subtree: { tokens: 1500 } });
    expect(ledger.unsettled).toBe(0);
    expect(ledger.snapshot().leases).toEqual({ held: 0, tokens: 0 });
  });

  it('gives no lease under a cap that counts turns or tool calls, nor in a subtree that had to wait', () => {
    const counted = ledgerWith({ tokens: 1_000_000, turns: 50 }, ['root.1']);
    expect(granted(counted.decide(leaseRequest('root.1', 1000, 4000), 0)).leaseId).toBeUndefined();
    const tight = ledgerWith({ tokens: 12_000 }, ['root.1', 'root.2']);
    // 12,000 between twice 3 running agents does not cover a call of 5,000: reserved exactly, the half-room rule.
    expect(granted(tight.decide(leaseRequest('root.1', 1000, 4000), 0))).toMatchObject({ outputTokens: 4000 });
    expect(tight.snapshot().leases?.held).toBe(0);
  });

  it('asks leases back when a call of the subtree must wait, and answers the call once they come back', () => {
    const ledger = ledgerWith({ tokens: 200_000 }, ['root.1', 'root.2']);
    const lease = granted(ledger.decide(leaseRequest('root.1', 1000, 9000), 0));
    expect(lease.reservedTokens).toBe(33_333);
    // Others take the room exactly until a call no longer fits.
    for (let index = 0; index < 40; index++) {
      const request = {
        reservationId: `exact-${index}`,
        agentId: 'root.2',
        model: 'm',
        inputTokens: 1000,
        maxOutputTokens: 9000,
        minOutputTokens: 9000,
      };
      const decision = ledger.decide(request, 0);
      if (!('granted' in decision)) {
        ledger.enqueue({ request, requesterId: 'root.2' });
        break;
      }
    }
    expect(ledger.hasWaiting).toBe(true);
    expect(ledger.takeRevokes()).toEqual([
      expect.objectContaining({ leaseId: lease.leaseId, agentId: 'root.1', scopeAgentId: 'root' }),
    ]);
    // No new lease, and no top-up, while the subtree is tight.
    expect(granted(ledger.decide(leaseRequest('root.1', 100, 100), 0)).leaseId).toBeUndefined();
    expect(ledger.decide(leaseRequest('root.1', 100, 100, { ahead: true, topUp: lease.leaseId }), 0)).toMatchObject({
      granted: false,
    });
    ledger.charge(unusedRest(lease.leaseId!, 'root.1'));
    expect(ledger.drain(0)).toHaveLength(1);
  });

  it("tops a lease up while there is room, and refuses a top-up of another agent's lease", () => {
    const ledger = ledgerWith({ tokens: 1_000_000 }, ['root.1', 'root.2']);
    const lease = granted(ledger.decide(leaseRequest('root.1', 1000, 4000), 0));
    const topUp = ledger.decide(leaseRequest('root.1', 1000, 4000, { ahead: true, topUp: lease.leaseId }), 0);
    expect(topUp).toMatchObject({ granted: true, leaseId: lease.leaseId, reservedTokens: 20_000 });
    expect(rootAccount(ledger).reservedTokens).toBe(40_000);
    const stolen = ledger.decide(leaseRequest('root.2', 1000, 4000, { ahead: true, topUp: lease.leaseId }), 0);
    expect(stolen).toMatchObject({ granted: false });
    // Nor may another agent spend from it, or end it.
    ledger.charge(callCharge('root.2', lease.leaseId!, 'forged', usage(1000, 1000), { endsLease: true }));
    expect(rootAccount(ledger).reservedTokens).toBe(40_000);
    expect(ledger.snapshot().leases).toEqual({ held: 1, tokens: 40_000 });
  });

  it("counts a cut call of a lease at its input estimate until its activity's charge replaces it", () => {
    const ledger = ledgerWith({ tokens: 1_000_000 }, ['root.1']);
    const lease = granted(ledger.decide(leaseRequest('root.1', 1000, 4000), 0));
    ledger.charge(
      callCharge('root.1', lease.leaseId!, 'cut', usage(0, 0), {
        attempt: 0,
        presumedInputTokens: 1000,
        endsLease: true,
        toolCalls: undefined,
      }),
    );
    expect(rootAccount(ledger)).toMatchObject({ reservedTokens: 0, subtree: { tokens: 1000, turns: 0 } });
    expect(ledger.unsettled).toBe(1);
    ledger.charge(
      callCharge('root.1', lease.leaseId!, 'cut', usage(1000, 300), { final: false, toolCalls: undefined }),
    );
    expect(rootAccount(ledger).subtree).toMatchObject({ tokens: 1300, turns: 1 });
    expect(ledger.unsettled).toBe(0);
    // The lease had closed: the 300 beyond the estimate were not held by any reservation.
    expect(ledger.snapshot().overspendTokens).toBe(300);
  });

  it('carries leases across a continued root', () => {
    const ledger = ledgerWith({ tokens: 1_000_000 }, ['root.1']);
    const lease = granted(ledger.decide(leaseRequest('root.1', 1000, 4000), 0));
    const next = new BudgetLedger('root', { tokens: 1_000_000 }, 'stop', costOf, 0);
    next.restore(JSON.parse(JSON.stringify(ledger.carry())));
    next.charge(callCharge('root.1', lease.leaseId!, 'call-1', usage(1000, 1000)));
    expect(rootAccount(next)).toMatchObject({ reservedTokens: 18_000, subtree: { tokens: 2000 } });
  });
});

describe("an agent's lease", () => {
  it('spends calls from the lease without asking, counting a retried call at all its room', () => {
    const lease = new LeaseAccount();
    lease.hold('L', 20_000);
    expect(lease.take({ callId: 'c1', tokens: 5000, inputTokens: 1000 })).toBe(true);
    // One call at a time.
    expect(lease.available).toBe(0);
    lease.settled(1500);
    expect(lease.available).toBe(18_500);
    expect(lease.take({ callId: 'c2', tokens: 5000, inputTokens: 1000 })).toBe(true);
    expect(lease.cut()).toMatchObject({ callId: 'c2', inputTokens: 1000 });
    expect(lease.available).toBe(13_500);
    expect(lease.take({ callId: 'c3', tokens: 14_000, inputTokens: 1000 })).toBe(false);
  });

  it('adds a top-up, stops asking after a refusal, and gives the lease back when asked while idle', () => {
    const lease = new LeaseAccount();
    lease.hold('L', 10_000);
    lease.askedTopUp('T1');
    expect(
      lease.receive({ reservationId: 'T1', granted: true, outputTokens: 1, reservedTokens: 10_000, leaseId: 'L' }),
    ).toEqual({ handled: true, giveBack: false });
    expect(lease.available).toBe(20_000);
    lease.askedTopUp('T2');
    lease.receive(tokenRefusal('T2', 'no'));
    expect(lease.mayTopUp).toBe(false);
    expect(lease.receive({ reservationId: 'other', granted: true, outputTokens: 1, reservedTokens: 1 })).toEqual({
      handled: false,
      giveBack: false,
    });
    expect(lease.receive(tokenRefusal('L', 'tight', true))).toEqual({ handled: true, giveBack: true });
    expect(lease.available).toBe(0);
  });

  it('waits for its call before giving back a lease asked back mid-call', () => {
    const lease = new LeaseAccount();
    lease.hold('L', 10_000);
    lease.take({ callId: 'c1', tokens: 5000, inputTokens: 1000 });
    expect(lease.receive(tokenRefusal('L', 'tight', true))).toEqual({ handled: true, giveBack: false });
    expect(lease.revoked).toBe(true);
  });
});
