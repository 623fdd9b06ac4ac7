import { ActivityFailure, ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { defaultMaxOutputTokens } from '../../shared/protocol/limits';
import type { ModelCallInput, ModelCallResult, PreReadRequest } from '../../shared/model/model-call';
import { textHash } from '../../shared/model/conversation-hash';
import type { BudgetAction } from '../../shared/budget/budget';
import { ErrorType } from '../../shared/protocol/errors';
import { modelActivities, modelOptions } from '../runtime/activity-proxies';
import { abortLocallyWhenCancelled } from '../runtime/local-abort';
import { readWithLastCallSummary } from '../tools/pre-reads';
import { settingsLookField } from './settings-reload';
import { releaseModelCall, reserveModelCall, type BudgetedAgent, type CallReservation } from '../budget/model-budget';

/** What a model call needs of an agent: its input, its conversation and its link to the tree's ledger. */
type CallingAgent = BudgetedAgent;

/** Fresh reservations a turn asks for when its call's retries used up the one before. */
const maxBudgetRetries = 3;

/** A turn's model call: answered (with the room it held), failed, or not sent because the budget refused it. */
export type ModelCallOutcome =
  | { type: 'answered'; response: ModelCallResult; reservation: CallReservation }
  | { type: 'failed'; error: string }
  | { type: 'budget'; reason: string; action: BudgetAction };

/**
 * The turn's model call within the tree's budget (docs/budgets.md): reserved first (a call that cannot
 * does not start), and reserved again when its retries used up the room (calls cut after message_start).
 */
export async function callModelWithinBudget(
  agent: CallingAgent,
  preRead: PreReadRequest | undefined,
): Promise<ModelCallOutcome> {
  let reservation = await reserveModelCall(agent, maxOutputTokens(agent));
  if (reservation.kind === 'refused')
    return { type: 'budget', reason: reservation.grant.reason, action: reservation.grant.action };
  let response = await callModel(agent, preRead, reservation);
  for (
    let again = 0;
    'failure' in response && response.failure.startsWith(ErrorType.BudgetExhausted) && again < maxBudgetRetries;
    again++
  ) {
    reservation = await reserveModelCall(agent, maxOutputTokens(agent));
    if (reservation.kind === 'refused')
      return { type: 'budget', reason: reservation.grant.reason, action: reservation.grant.action };
    response = await callModel(agent, preRead, reservation);
  }
  if ('failure' in response) return { type: 'failed', error: response.failure };
  return { type: 'answered', response, reservation };
}

/** The max_tokens of this agent's calls when the budget does not lower it. */
export function maxOutputTokens({ input }: Pick<CallingAgent, 'input'>): number {
  return input.maxOutputTokens ?? defaultMaxOutputTokens;
}

/** The new messages a model call carries, and with all of them (a run's first call) what else its worker needs (docs/architecture.md). */
function tailOf(state: CallingAgent['state'], tools: string[]): Pick<ModelCallInput, 'tail' | 'opening'> {
  const tail = state.modelCallTail();
  if (!tail) return {};
  return tail.from === 0 ? { tail, opening: { tools, systemPromptHash: textHash(state.systemPrompt) } } : { tail };
}

/** One model turn, or the message of a model error Temporal gave up on (non-retryable, or out of attempts). */
async function callModel(
  agent: CallingAgent,
  preRead: PreReadRequest | undefined,
  reservation: CallReservation,
): Promise<ModelCallResult | { failure: string }> {
  const { input, state } = agent;
  let completed = false;
  // A stop or an interrupt aborts the call on the worker at once, not at its next heartbeat.
  const ended = abortLocallyWhenCancelled();
  try {
    const summary = `model turn ${state.turn} · ${input.model}${readWithLastCallSummary(state.takeReadWithLastCall())}`;
    const result = await modelActivities.callModel.executeWithOptions({ ...modelOptions, summary }, [
      {
        agentId: input.agentId,
        agentType: input.agentType,
        agentName: input.name,
        runId: workflowInfo().runId,
        model: input.model,
        maxOutputTokens: reservation.kind === 'granted' ? reservation.maxOutputTokens : maxOutputTokens({ input }),
        ...(reservation.kind === 'granted' ? { budget: reservation.budget } : {}),
        ...(input.thinking ? { thinking: input.thinking } : {}),
        ...(input.effort ? { effort: input.effort } : {}),
        messageCount: state.messages.length,
        conversationHash: state.conversationHash,
        turn: state.turn,
        ...tailOf(state, input.tools),
        ...(preRead ? { preRead } : {}),
        ...settingsLookField(agent),
      },
    ]);
    completed = true;
    return result;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      return { failure: `${error.cause.type}: ${error.cause.message}` };
    }
    throw error;
  } finally {
    ended();
    // A call that failed or was cut gives back what its attempts did not use.
    if (!completed) await releaseModelCall(agent, reservation);
  }
}
