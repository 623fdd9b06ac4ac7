// Builders shared by the budget ledger and lease unit tests: prices easy to check by hand, charges and refusals.
import type { BudgetCharge, BudgetGrant, BudgetReserveRequest } from '../../src/shared/budget/budget';
import type { TokenUsage } from '../../src/shared/model/messages';

/** $1 per input token and $2 per output token: easy to check by hand. */
export const costOf = (_model: string, usage: TokenUsage) =>
  usage.inputTokens + usage.cacheCreationInputTokens * 1.25 + usage.cacheReadInputTokens * 0.1 + usage.outputTokens * 2;

/** Token usage without cache reads or writes. */
export const usage = (inputTokens: number, outputTokens: number): TokenUsage => ({
  inputTokens,
  outputTokens,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
});

/** The final charge of the first attempt of `call`, by the agent that asked for it. */
export function chargeOf(
  call: BudgetReserveRequest,
  tokens: TokenUsage,
  extra: Partial<BudgetCharge> = {},
): BudgetCharge {
  return {
    reservationId: call.reservationId,
    agentId: call.agentId,
    model: call.model,
    attempt: 1,
    usage: tokens,
    final: true,
    ...extra,
  };
}

type Refusal = Extract<BudgetGrant, { granted: false }>;

/** A refusal by the root's token cap with the stop action; a revoked one asks the lease `reservationId` back. */
export function tokenRefusal(reservationId: string, reason: string, revoked?: true): Refusal {
  const refusal: Refusal = {
    reservationId,
    granted: false,
    reason,
    scopeAgentId: 'root',
    cap: 'tokens',
    action: 'stop',
  };
  return revoked ? { ...refusal, revoked } : refusal;
}
