import type { Client } from '@temporalio/client';
import type { BudgetCharge } from '../shared/budget/budget';
import { budgetChargeSignal } from '../shared/protocol/definitions';
import type { TokenUsage } from '../shared/model/messages';
import type { ModelCallInput } from '../shared/model/model-call';

/** Charges the ledger for a billed attempt from the activity, so cut or failed calls count (docs/budgets.md). */
export async function chargeBudget(
  client: Client,
  input: Pick<ModelCallInput, 'budget' | 'agentId' | 'model'>,
  attempt: number,
  usage: TokenUsage,
  options: { final: boolean; toolCalls?: number },
): Promise<boolean> {
  const budget = input.budget;
  if (!budget) return false;
  const charge: BudgetCharge = {
    reservationId: budget.reservationId,
    agentId: input.agentId,
    model: input.model,
    attempt,
    usage,
    final: options.final,
    ...(budget.leaseId !== undefined ? { leaseId: budget.leaseId } : {}),
    ...(options.toolCalls !== undefined ? { toolCalls: options.toolCalls } : {}),
  };
  try {
    await client.workflow.getHandle(budget.rootAgentId).signal(budgetChargeSignal, charge);
    return true;
  } catch {
    return false;
  }
}
