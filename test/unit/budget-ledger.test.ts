import { describe, expect, it } from 'vitest';
import type { BudgetCaps, BudgetReserveRequest } from '../../src/shared/budget/budget';
import { BudgetLedger } from '../../src/shared/budget/budget-ledger';
import { chargeOf, costOf, usage } from '../helpers/unit-budget';

let ids = 0;
function request(
  agentId: string,
  inputTokens: number,
  maxOutputTokens: number,
  minOutputTokens = 100,
): BudgetReserveRequest {
  ids += 1;
  return { reservationId: `${agentId}/${ids}`, agentId, model: 'm', inputTokens, maxOutputTokens, minOutputTokens };
}
function ledgerWith(caps: BudgetCaps, action: 'stop' | 'finish' = 'stop'): BudgetLedger {
  return new BudgetLedger('root', caps, action, costOf, 0);
}

describe('the tree ledger', () => {
  it('grants at most half of what is left, so calls starting together share the room, and never more than the cap', () => {
    const ledger = ledgerWith({ tokens: 20_000 });
    for (const child of ['root.1', 'root.2', 'root.3']) ledger.join(child, 'root', undefined, 0);
    const grants = ['root.1', 'root.2', 'root.3'].map((agent) => ledger.decide(request(agent, 1000, 32_000), 0));
    const outputs = grants.map((grant) => ('granted' in grant && grant.granted ? grant.outputTokens : 0));
    expect(outputs).toEqual([9500, 4250, 1625]);
    const reserved = grants.reduce(
      (sum, grant) => sum + ('granted' in grant && grant.granted ? grant.reservedTokens : 0),
      0,
    );
    expect(reserved).toBeLessThanOrEqual(20_000);
  });

  it('makes a call wait while calls in flight may give room back, and answers it when they settle', () => {
    const ledger = ledgerWith({ tokens: 3000 });
    ledger.join('root.1', 'root', undefined, 0);
    ledger.join('root.2', 'root', undefined, 0);
    const first = request('root.1', 500, 4000, 1000);
    expect(ledger.decide(first, 0)).toMatchObject({ granted: true, outputTokens: 1250 });
    const second = request('root.2', 500, 4000, 1000);
    expect(ledger.decide(second, 0)).toEqual({ reservationId: second.reservationId, wait: true });
    ledger.enqueue({ request: second, requesterId: 'root.2' });
    expect(ledger.drain(0)).toEqual([]);
    ledger.charge(chargeOf(first, usage(500, 200)));
    const answers = ledger.drain(0);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.grant).toMatchObject({ granted: true, outputTokens: 1000 });
  });

  it('refuses when nothing in flight can give room back, and names the cap with its use', () => {
    const ledger = ledgerWith({ tokens: 1000 });
    const call = request('root', 100, 4000, 500);
    expect(ledger.decide(call, 0)).toMatchObject({ granted: true, outputTokens: 500 });
    ledger.charge(chargeOf(call, usage(100, 500)));
    const refused = ledger.decide(request('root', 200, 4000, 500), 0);
    expect(refused).toMatchObject({ granted: false, scopeAgentId: 'root', cap: 'tokens', action: 'stop' });
    expect('reason' in refused && refused.reason).toBe("the tree's budget of 1,000 tokens, 600 used");
    expect(ledger.admit('root')).toMatchObject({ scopeAgentId: 'root' });
  });

  it('charges each attempt once, whoever reports it, and counts a call cut after message_start', () => {
    const ledger = ledgerWith({ tokens: 100_000 });
    const call = request('root', 1000, 2000);
    ledger.decide(call, 0);
    const cut = chargeOf(call, usage(1000, 37), { final: false });
    ledger.charge(cut);
    ledger.charge(cut);
    ledger.charge({ ...cut, attempt: 2, usage: usage(1000, 400), final: true });
    ledger.charge({ ...cut, attempt: 2, usage: usage(1000, 400), final: true });
    // The workflow's release after the activity's own final charge changes nothing.
    ledger.charge({ ...cut, attempt: 0, usage: usage(0, 0), final: true });
    expect(ledger.total.tokens).toBe(1037 + 1400);
    expect(ledger.snapshot().accounts[0]!.reservedTokens).toBe(0);
  });

  it('holds a subtree cap while its sibling goes on, and counts the subtree in every ancestor', () => {
    const ledger = ledgerWith({ tokens: 1_000_000 });
    ledger.join('root.1', 'root', { toolCalls: 2 }, 0);
    ledger.join('root.1.1', 'root.1', undefined, 0);
    ledger.join('root.2', 'root', undefined, 0);
    const call = request('root.1.1', 10, 100);
    ledger.decide(call, 0);
    ledger.charge(chargeOf(call, usage(10, 5), { toolCalls: 2 }));
    expect(ledger.decide(request('root.1', 10, 100), 0)).toMatchObject({
      granted: false,
      scopeAgentId: 'root.1',
      cap: 'toolCalls',
    });
    expect(ledger.decide(request('root.1.1', 10, 100), 0)).toMatchObject({ granted: false, scopeAgentId: 'root.1' });
    expect(ledger.decide(request('root.2', 10, 100), 0)).toMatchObject({ granted: true });
    expect(ledger.runningIn('root.1')).toEqual(['root.1.1', 'root.1']);
    const root = ledger.snapshot().accounts.find((account) => account.agentId === 'root')!;
    expect(root.subtree.toolCalls).toBe(2);
    // A turn counts once its call was sent (charged); root.2's call holds a reservation only.
    expect(root.subtree.turns).toBe(1);
  });

  it('prices cost caps with cache reads, and refuses what the dollars cannot buy', () => {
    const ledger = ledgerWith({ costUsd: 100 });
    const call = request('root', 10, 1000, 10);
    // $10 of input leaves $90: half of the 45 output tokens it buys.
    expect(ledger.decide(call, 0)).toMatchObject({ granted: true, outputTokens: 22 });
    ledger.charge(
      chargeOf(call, { inputTokens: 10, outputTokens: 20, cacheCreationInputTokens: 0, cacheReadInputTokens: 500 }),
    );
    expect(ledger.total.costUsd).toBeCloseTo(10 + 40 + 50);
    expect(ledger.decide(request('root', 1, 1000, 10), 0)).toMatchObject({ granted: false, cap: 'costUsd' });
  });

  it('stops a subtree whose wall time ran out, and lifts a cap raised on the running tree', () => {
    const ledger = ledgerWith({ tokens: 500 });
    ledger.join('root.1', 'root', { wallTimeMs: 1000 }, 100);
    expect(ledger.nextDeadlineMs()).toBe(1100);
    expect(ledger.expired(1099)).toEqual([]);
    expect(ledger.expired(1100)).toEqual([
      { scopeAgentId: 'root.1', reason: "the subtree of root.1's budget of 1s of wall time, 1s elapsed" },
    ]);
    const call = request('root', 100, 1000, 300);
    ledger.decide(call, 0);
    ledger.charge(chargeOf(call, usage(100, 300)));
    expect(ledger.decide(request('root', 100, 1000, 300), 0)).toMatchObject({ granted: false });
    ledger.setCaps(undefined, { tokens: 5000 });
    expect(ledger.decide(request('root', 100, 1000, 300), 0)).toMatchObject({ granted: true });
  });

  it('counts a call its agent left in flight at its input estimate until its real charge replaces it', () => {
    const ledger = ledgerWith({ tokens: 100_000 });
    ledger.join('root.1', 'root', undefined, 0);
    const call = request('root.1', 700, 1000);
    ledger.decide(call, 0);
    ledger.leave('root.1');
    expect(ledger.total.tokens).toBe(700);
    ledger.charge(chargeOf(call, usage(650, 12), { final: false }));
    expect(ledger.total.tokens).toBe(662);
    expect(ledger.snapshot().accounts.find((account) => account.agentId === 'root')!.reservedTokens).toBe(0);
  });

  it('carries everything across continue-as-new: a repeated charge after it is still counted once', () => {
    const ledger = ledgerWith({ tokens: 10_000, concurrentAgents: 2 });
    const call = request('root', 100, 500);
    ledger.decide(call, 0);
    const charge = chargeOf(call, usage(100, 50));
    ledger.charge(charge);
    const next = ledgerWith({ tokens: 10_000, concurrentAgents: 2 });
    next.restore(JSON.parse(JSON.stringify(ledger.carry())));
    next.charge(charge);
    expect(next.total.tokens).toBe(150);
    next.join('root.1', 'root', undefined, 0);
    expect(next.admit('root')).toMatchObject({ cap: 'concurrentAgents' });
  });
});
