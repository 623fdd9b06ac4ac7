import { CancellationScope } from '@temporalio/workflow';
import type { BudgetGrant, BudgetReserveRequest, ModelCallBudget } from '../shared/budget';
import { minBudgetedOutputTokens } from '../shared/limits';
import type { ModelCallResult } from '../shared/model-call';
import { toolUsesOf } from '../shared/tool-results';
import type { AgentWorkflowInput } from '../shared/agent';
import type { AgentState } from './agent-state';
import type { TreeLink } from './tree-link';
import { estimateNextRequestTokens } from './context-meter';
import { hasPatch } from './patches';
import { budgetLedgerPatch } from './tree-ledger';

/** What reserving needs of an agent (not the whole of its parts: this module stays out of their import circle). */
export interface BudgetedAgent {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
  readonly tree: TreeLink;
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

/** Whether this run reserves (asked once, at its first call: module state is per run). */
let ledgerInUse: boolean | undefined;

function reserves({ input }: Pick<BudgetedAgent, 'input'>): boolean {
  if (input.budgeted !== true) return false;
  ledgerInUse ??= hasPatch(budgetLedgerPatch);
  return ledgerInUse;
}

/** Fewer output tokens are not worth a call; with thinking on, max_tokens must exceed the thinking budget. */
function minOutputFor({ input }: Pick<BudgetedAgent, 'input'>, maxOutputTokens: number): number {
  const thinking = input.thinking?.type === 'enabled' ? input.thinking.budgetTokens : 0;
  return Math.min(maxOutputTokens, thinking + minBudgetedOutputTokens);
}

function requestFor(agent: BudgetedAgent, maxOutputTokens: number, inputTokens: number, ahead: boolean): BudgetReserveRequest {
  const { input, tree } = agent;
  return {
    reservationId: tree.nextReservationId(),
    agentId: input.agentId,
    ...(input.parentAgentId !== undefined ? { parentAgentId: input.parentAgentId } : {}),
    ...(input.budgetCaps ? { caps: input.budgetCaps } : {}),
    model: input.model,
    inputTokens,
    maxOutputTokens,
    minOutputTokens: minOutputFor(agent, maxOutputTokens),
    ...(ahead ? { ahead: true } : {}),
  };
}

function granted(agent: BudgetedAgent, grant: Extract<BudgetGrant, { granted: true }>, maxOutputTokens: number): CallReservation {
  return {
    kind: 'granted',
    budget: { rootAgentId: agent.input.rootAgentId, reservationId: grant.reservationId, reservedTokens: grant.reservedTokens },
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
  const { input, state, tree } = agent;
  const inputTokens = estimateNextRequestTokens(input, state);
  const ahead = tree.takeAhead();
  if (ahead !== undefined) {
    const grant = await tree.grantOf(ahead);
    if (grant.granted) {
      const fits = Math.min(grant.outputTokens, grant.reservedTokens - inputTokens, maxOutputTokens);
      if (fits >= minOutputFor(agent, maxOutputTokens)) return granted(agent, grant, fits);
      await tree.releaseModelCall(grant.reservationId, input.model, true);
    }
  }
  const grant = await tree.reserveModelCall(requestFor(agent, maxOutputTokens, inputTokens, false));
  if (!grant.granted) return { kind: 'refused', grant };
  return granted(agent, grant, grant.outputTokens);
}

/**
 * After a call that answered: charges it, and when the agent goes on to its tools, asks ahead for the next
 * call in the same signal, so the answer is there when the tools are done.
 */
export async function settleModelCall(agent: BudgetedAgent, reservation: CallReservation, response: ModelCallResult, maxOutputTokens: number): Promise<void> {
  if (reservation.kind !== 'granted') return;
  const { input, state, tree } = agent;
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
  if (goesOn) tree.reserveAhead(requestFor(agent, maxOutputTokens, estimateNextRequestTokens(input, state) + aheadMarginTokens, true), charge);
  // Delivered before the agent may end: the root has the charge before it learns of the end.
  else await tree.chargeModelCall(charge);
}

/** A call that did not complete gives its reservation back (what its attempts were billed, their activity charged). */
export async function releaseModelCall(agent: BudgetedAgent, reservation: CallReservation): Promise<void> {
  if (reservation.kind !== 'granted') return;
  await CancellationScope.nonCancellable(() => agent.tree.releaseModelCall(reservation.budget.reservationId, agent.input.model));
}

/**
 * A reservation asked ahead that no call will take (the run continues as new, or ends): given back without
 * waiting for its answer (the root decides a request before a later release from the same agent; it refuses
 * a waiting request of an agent that has ended).
 */
export async function releaseAhead(agent: BudgetedAgent): Promise<void> {
  const ahead = agent.tree.takeAhead();
  if (ahead === undefined) return;
  const grant = agent.tree.answeredGrant(ahead);
  if (grant?.granted !== false) await CancellationScope.nonCancellable(() => agent.tree.releaseModelCall(ahead, agent.input.model, true));
}
