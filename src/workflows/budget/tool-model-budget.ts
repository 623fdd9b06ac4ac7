import { CancellationScope } from '@temporalio/workflow';
import {
  granted,
  releaseAhead,
  reserveRequest,
  reserves,
  type BudgetedAgent,
  type CallReservation,
} from './model-budget';

/**
 * Before a tool that calls the model itself (WebFetch, WebSearch) runs in a budgeted tree: reserves
 * exactly its input bound and its max_tokens, never from a lease. A refusal only says no (the tool is
 * not run; the agent goes on). The agent's own held room (its lease, its next call's room asked ahead)
 * is given back first, so the tool never waits for room its own agent holds while it waits for the tool.
 */
export async function reserveToolModelCall(
  agent: BudgetedAgent,
  maxOutputTokens: number,
  inputTokensBound: number,
): Promise<CallReservation> {
  if (!reserves(agent)) return { kind: 'none' };
  await releaseAhead(agent);
  // Priced at the agent's model (the tool's small model is the worker's setting). All or nothing: the tool's
  // max_tokens is fixed in its activity. Never a lease: the request asks for none.
  const request = reserveRequest(agent, {
    inputTokens: inputTokensBound,
    maxOutputTokens,
    minOutputTokens: maxOutputTokens,
    ahead: true,
  });
  const grant = await agent.budget.reserveModelCall(request);
  if (!grant.granted) return { kind: 'refused', grant };
  return granted(agent, grant, maxOutputTokens);
}

/**
 * After the tool's activity ended, whatever way: the rest of its reservation goes back. Its activity
 * charged what its model calls were billed before it ended, so nothing is presumed.
 */
export async function releaseToolModelCall(agent: BudgetedAgent, reservation: CallReservation): Promise<void> {
  if (reservation.kind !== 'granted') return;
  await CancellationScope.nonCancellable(() =>
    agent.budget.releaseModelCall(reservation.budget.reservationId, agent.input.model, true),
  );
}
