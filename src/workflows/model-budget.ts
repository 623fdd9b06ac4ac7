import { CancellationScope } from '@temporalio/workflow';
import type { BudgetGrant, ModelCallBudget } from '../shared/budget';
import { minBudgetedOutputTokens } from '../shared/limits';
import type { AgentParts } from './agent-parts';
import { estimateNextRequestTokens } from './context-meter';
import { hasPatch } from './patches';
import { budgetLedgerPatch } from './tree-ledger';

/** A model call's place in the tree's ledger: none (no caps), room granted, or refused. */
export type CallReservation =
  | { kind: 'none' }
  | { kind: 'granted'; budget: ModelCallBudget; maxOutputTokens: number }
  | { kind: 'refused'; grant: Extract<BudgetGrant, { granted: false }> };

/** Whether this run reserves (asked once, at its first call: module state is per run). */
let ledgerInUse: boolean | undefined;

function reserves({ input }: Pick<AgentParts, 'input'>): boolean {
  if (input.budgeted !== true) return false;
  ledgerInUse ??= hasPatch(budgetLedgerPatch);
  return ledgerInUse;
}

/**
 * Before a model call of a budgeted tree (docs/budgets.md): reserves its estimated input and its
 * max_tokens, lowered to what the caps leave; waits while other calls may give room back.
 */
export async function reserveModelCall(agent: AgentParts, maxOutputTokens: number): Promise<CallReservation> {
  if (!reserves(agent)) return { kind: 'none' };
  const { input, state, tree } = agent;
  const thinking = input.thinking?.type === 'enabled' ? input.thinking.budgetTokens : 0;
  const grant = await tree.reserveModelCall({
    reservationId: tree.nextReservationId(),
    agentId: input.agentId,
    ...(input.parentAgentId !== undefined ? { parentAgentId: input.parentAgentId } : {}),
    ...(input.budgetCaps ? { caps: input.budgetCaps } : {}),
    model: input.model,
    inputTokens: estimateNextRequestTokens(input, state),
    maxOutputTokens,
    // With thinking on, max_tokens must exceed the thinking budget.
    minOutputTokens: Math.min(maxOutputTokens, thinking + minBudgetedOutputTokens),
  });
  if (!grant.granted) return { kind: 'refused', grant };
  return {
    kind: 'granted',
    budget: { rootAgentId: input.rootAgentId, reservationId: grant.reservationId, reservedTokens: grant.reservedTokens },
    maxOutputTokens: grant.outputTokens,
  };
}

/** A call that did not complete gives its reservation back (what its attempts were billed, their activity charged). */
export async function releaseModelCall(agent: AgentParts, reservation: CallReservation): Promise<void> {
  if (reservation.kind !== 'granted') return;
  await CancellationScope.nonCancellable(() => agent.tree.releaseModelCall(reservation.budget.reservationId, agent.input.model));
}
