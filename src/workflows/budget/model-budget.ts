import { CancellationScope, condition } from '@temporalio/workflow';
import type { BudgetCharge, BudgetGrant, BudgetReserveRequest, ModelCallBudget } from '../../shared/budget/budget';
import { leaseCalls, leaseTopUpCalls } from '../../shared/budget/budget-leases';
import { minBudgetedOutputTokens } from '../../shared/protocol/limits';
import { totalTokens } from '../../shared/model/messages';
import type { ModelCallResult } from '../../shared/model/model-call';
import { toolUsesOf } from '../../shared/tools/tool-results';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { AgentState } from '../loop/agent-state';
import type { BudgetLink } from './budget-link';
import { estimateNextRequestTokens } from '../context/context-meter';
import { countedInputTokens } from './input-count';

/** What reserving needs of an agent (not the whole of its parts: this module stays out of their import circle). */
export interface BudgetedAgent {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
  readonly budget: BudgetLink;
}

/** A model call's place in the tree's ledger: none (no caps), room granted, or refused. */
export type CallReservation =
  | { kind: 'none' }
  | { kind: 'granted'; budget: ModelCallBudget; maxOutputTokens: number }
  | { kind: 'refused'; grant: Extract<BudgetGrant, { granted: false }> };

/** Tokens a reservation asked ahead holds beyond the conversation as it is, for the tool results still to come. */
const aheadMarginTokens = 4096;

/** Tools that may wait for other agents of the tree (a foreground child, a child's output): no room is held ahead across them. */
const waitingTools: ReadonlySet<string> = new Set(['Agent', 'TaskOutput']);

/** Whether this agent's model calls reserve from its tree's ledger. */
export function reserves({ input }: Pick<BudgetedAgent, 'input' | 'budget'>): boolean {
  return input.budgeted === true;
}

/** Whether this run asks for leases (a child: the root decides its own calls in its own task, at no cost). */
function leases({ budget }: Pick<BudgetedAgent, 'budget'>): boolean {
  return !budget.ledger;
}

/** Fewer output tokens are not worth a call; with thinking on, max_tokens must exceed the thinking budget. */
function minOutputFor({ input }: Pick<BudgetedAgent, 'input'>, maxOutputTokens: number): number {
  const thinking = input.thinking?.type === 'enabled' ? input.thinking.budgetTokens : 0;
  return Math.min(maxOutputTokens, thinking + minBudgetedOutputTokens);
}

/** A request of this agent for one call's room, under a new reservation id (its parent and caps ride along). */
export function reserveRequest(
  { input, budget }: BudgetedAgent,
  room: Pick<BudgetReserveRequest, 'inputTokens' | 'maxOutputTokens' | 'minOutputTokens'> & { ahead: boolean },
): BudgetReserveRequest {
  return {
    reservationId: budget.nextReservationId(),
    agentId: input.agentId,
    ...(input.parentAgentId !== undefined ? { parentAgentId: input.parentAgentId } : {}),
    ...(input.budgetCaps ? { caps: input.budgetCaps } : {}),
    model: input.model,
    inputTokens: room.inputTokens,
    maxOutputTokens: room.maxOutputTokens,
    minOutputTokens: room.minOutputTokens,
    ...(room.ahead ? { ahead: true } : {}),
  };
}

function requestFor(
  agent: BudgetedAgent,
  maxOutputTokens: number,
  inputTokens: number,
  ahead: boolean,
  topUp?: string,
): BudgetReserveRequest {
  const leaseTokens = leases(agent) ? leaseCalls * (inputTokens + maxOutputTokens) : undefined;
  return {
    ...reserveRequest(agent, {
      inputTokens,
      maxOutputTokens,
      minOutputTokens: minOutputFor(agent, maxOutputTokens),
      ahead,
    }),
    ...(leaseTokens !== undefined ? { leaseTokens } : {}),
    ...(topUp !== undefined ? { topUp } : {}),
  };
}

/** Room for this call from the agent's lease, waiting for a top-up on its way; undefined when the lease cannot cover it. */
async function spendFromLease(
  agent: BudgetedAgent,
  inputTokens: number,
  maxOutputTokens: number,
): Promise<CallReservation | undefined> {
  const { input, budget } = agent;
  const lease = budget.lease;
  const leaseId = lease.leaseId;
  if (leaseId === undefined) return undefined;
  const tokens = inputTokens + maxOutputTokens;
  if (lease.available < tokens && lease.toppingUp) await condition(() => !lease.toppingUp || lease.leaseId !== leaseId);
  const callId = budget.nextReservationId();
  if (lease.leaseId === leaseId && lease.take({ callId, tokens, inputTokens })) {
    return {
      kind: 'granted',
      budget: { rootAgentId: input.rootAgentId, reservationId: callId, reservedTokens: tokens, leaseId },
      maxOutputTokens,
    };
  }
  // Spent or asked back: the rest goes back, and this call reserves exactly (perhaps with a new lease).
  await CancellationScope.nonCancellable(() => budget.releaseLease());
  return undefined;
}

/** A grant that is a new lease: held, and this call's room taken from it. */
async function fromGrantedLease(
  agent: BudgetedAgent,
  grant: Extract<BudgetGrant, { granted: true }>,
  inputTokens: number,
  maxOutputTokens: number,
): Promise<CallReservation | undefined> {
  if (grant.leaseId === undefined) return undefined;
  agent.budget.lease.hold(grant.leaseId, grant.reservedTokens);
  return spendFromLease(agent, inputTokens, maxOutputTokens);
}

/** A call's reservation as its grant gives it, with the max_tokens it may send. */
export function granted(
  agent: BudgetedAgent,
  grant: Extract<BudgetGrant, { granted: true }>,
  maxOutputTokens: number,
): CallReservation {
  return {
    kind: 'granted',
    budget: {
      rootAgentId: agent.input.rootAgentId,
      reservationId: grant.reservationId,
      reservedTokens: grant.reservedTokens,
    },
    maxOutputTokens,
  };
}

/**
 * Before a model call of a budgeted tree (docs/budgets.md): takes the room asked ahead while the last
 * turn's tools ran when it still fits the request as it now is (max_tokens within what it holds), else
 * reserves the estimated input and max_tokens — lowered to what the caps leave — waiting while other
 * calls may give room back.
 */
export async function reserveModelCall(agent: BudgetedAgent, maxOutputTokens: number): Promise<CallReservation> {
  if (!reserves(agent)) return { kind: 'none' };
  const { input, state, budget } = agent;
  // Counted by count_tokens when nothing was measured yet (src/workflows/budget/input-count.ts); no await otherwise.
  const counting = countedInputTokens(agent);
  const inputTokens = counting === undefined ? estimateNextRequestTokens(input, state) : await counting;
  const leased = await spendFromLease(agent, inputTokens, maxOutputTokens);
  if (leased) return leased;
  const ahead = budget.takeAhead();
  if (ahead !== undefined) {
    const grant = await budget.grantOf(ahead);
    if (grant.granted && grant.leaseId !== undefined) {
      const fromLease = await fromGrantedLease(agent, grant, inputTokens, maxOutputTokens);
      if (fromLease) return fromLease;
    } else if (grant.granted) {
      const fits = Math.min(grant.outputTokens, grant.reservedTokens - inputTokens, maxOutputTokens);
      if (fits >= minOutputFor(agent, maxOutputTokens)) return granted(agent, grant, fits);
      await budget.releaseModelCall(grant.reservationId, input.model, true);
    } else if (grant.revoked === true) {
      // A lease granted ahead and asked back before this call could take it.
      await budget.releaseModelCall(grant.reservationId, input.model, true);
    }
  }
  const request = requestFor(agent, maxOutputTokens, inputTokens, false);
  const grant = await budget.reserveModelCall(request);
  if (!grant.granted && grant.revoked === true) {
    // Its answer was a lease, asked back before this call could take it: given back, and asked again.
    await budget.releaseModelCall(grant.reservationId, input.model, true);
    return reserveModelCall(agent, maxOutputTokens);
  }
  if (!grant.granted) return { kind: 'refused', grant };
  if (grant.leaseId !== undefined) {
    const fromLease = await fromGrantedLease(agent, grant, inputTokens, maxOutputTokens);
    if (fromLease) return fromLease;
    return reserveModelCall(agent, maxOutputTokens);
  }
  return granted(agent, grant, grant.outputTokens);
}

/**
 * After a call that answered: charges it, and when the agent goes on to its tools, asks ahead for the next
 * call in the same signal, so the answer is there when the tools are done.
 */
export async function settleModelCall(
  agent: BudgetedAgent,
  reservation: CallReservation,
  response: ModelCallResult,
  maxOutputTokens: number,
): Promise<void> {
  if (reservation.kind !== 'granted') return;
  const { input, state, budget } = agent;
  const toolUses = toolUsesOf(response.content);
  const toolCalls = toolUses.length;
  const charge = {
    reservationId: reservation.budget.reservationId,
    agentId: input.agentId,
    model: input.model,
    attempt: response.attempt ?? 1,
    usage: response.usage,
    toolCalls,
    final: true,
  };
  // Not while it waits on children: room it held could be the room they wait for.
  const waitsOnChildren = toolUses.some((call) => waitingTools.has(call.name));
  const goesOn = toolCalls > 0 && !waitsOnChildren && response.stopReason === 'tool_use' && state.turn < input.maxTurns;
  const leaseId = reservation.budget.leaseId;
  if (leaseId !== undefined)
    return settleLeaseCall(agent, { ...charge, leaseId }, reservation, response, goesOn, maxOutputTokens);
  const ahead = goesOn
    ? requestFor(agent, maxOutputTokens, estimateNextRequestTokens(input, state) + aheadMarginTokens, true)
    : undefined;
  // Delivered before the agent may end: the root has the charge before it learns of the end.
  if (!ahead) await budget.chargeModelCall(charge);
  else budget.reserveAhead(ahead, charge);
}

/**
 * A call of the lease answered: what it spent comes off the lease here, and its charge goes to the root
 * without waiting. The lease is topped up in the same signal when it runs low, and given back with the
 * charge when the agent ends, waits on other agents, or the root asked for it.
 */
async function settleLeaseCall(
  agent: BudgetedAgent,
  charge: BudgetCharge,
  reservation: Extract<CallReservation, { kind: 'granted' }>,
  response: ModelCallResult,
  goesOn: boolean,
  maxOutputTokens: number,
): Promise<void> {
  const { input, state, budget } = agent;
  const lease = budget.lease;
  // Earlier attempts were billed by their activity, for amounts this workflow does not see: all the room counts.
  lease.settled((response.attempt ?? 1) > 1 ? reservation.budget.reservedTokens : totalTokens(response.usage));
  if (!goesOn || lease.revoked || lease.leaseId !== charge.leaseId) {
    if (lease.leaseId === charge.leaseId) lease.drop();
    await budget.chargeModelCall({ ...charge, endsLease: true });
    return;
  }
  const nextInput = estimateNextRequestTokens(input, state) + aheadMarginTokens;
  const lowOnRoom = lease.available < leaseTopUpCalls * (nextInput + maxOutputTokens);
  const topUp =
    lowOnRoom && lease.mayTopUp ? requestFor(agent, maxOutputTokens, nextInput, true, charge.leaseId) : undefined;
  // Charged by its activity already (no signal, no workflow task more), unless the activity could not reach the root.
  if (response.charged === true && !topUp) return;
  budget.chargeLeaseCall(charge, topUp);
}

/** A call that did not complete gives its reservation back (what its attempts were billed, their activity charged). */
export async function releaseModelCall(agent: BudgetedAgent, reservation: CallReservation): Promise<void> {
  if (reservation.kind !== 'granted') return;
  const { input, budget } = agent;
  const leaseId = reservation.budget.leaseId;
  if (leaseId === undefined) {
    await CancellationScope.nonCancellable(() =>
      budget.releaseModelCall(reservation.budget.reservationId, input.model),
    );
    return;
  }
  // Counted at its input estimate until its activity's own charge comes; all its room counts as spent here.
  const call = budget.lease.leaseId === leaseId ? budget.lease.cut() : undefined;
  const endsLease = budget.lease.revoked || budget.lease.leaseId !== leaseId;
  if (endsLease && budget.lease.leaseId === leaseId) budget.lease.drop();
  const presumedInputTokens = call?.inputTokens ?? reservation.budget.reservedTokens - reservation.maxOutputTokens;
  await CancellationScope.nonCancellable(() =>
    budget.releaseModelCall(reservation.budget.reservationId, input.model, false, {
      leaseId,
      presumedInputTokens,
      endsLease,
    }),
  );
}

/**
 * A reservation asked ahead that no call will take (the run continues as new, or ends): given back without
 * waiting for its answer (the root decides a request before a later release from the same agent; it refuses
 * a waiting request of an agent that has ended).
 */
export async function releaseAhead(agent: BudgetedAgent): Promise<void> {
  if (agent.budget.lease.leaseId !== undefined)
    await CancellationScope.nonCancellable(() => agent.budget.releaseLease());
  const ahead = agent.budget.takeAhead();
  if (ahead === undefined) return;
  const grant = agent.budget.answeredGrant(ahead);
  if (grant?.granted !== false)
    await CancellationScope.nonCancellable(() => agent.budget.releaseModelCall(ahead, agent.input.model, true));
}
