import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { turnConversationQuery } from '../../shared/rewind/rewind-protocol';
import { conversationHashOf, type TurnConversation } from '../../shared/rewind/turns';

/** Earlier runs a boundary may be held by, at most: each continue-as-new adds one hop. */
const maxHops = 50;

export interface FetchTurnConversationInput {
  agentId: string;
  /** The run that holds the boundary (from the boundary record); it may point on to an earlier run. */
  runId: string;
  turn: number;
  /** The boundary's conversation hash: what comes back must be exactly that conversation. */
  hash: string;
}

/** Reads a turn's exact conversation from the run that holds it (docs/rewind.md), recorded once in the caller's history. */
export async function fetchTurnConversation(
  client: Client,
  input: FetchTurnConversationInput,
): Promise<Extract<TurnConversation, { kind: 'conversation' }>> {
  let runId = input.runId;
  for (let hop = 0; hop < maxHops; hop++) {
    let answer: TurnConversation;
    try {
      answer = await client.workflow.getHandle(input.agentId, runId).query(turnConversationQuery, { turn: input.turn });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        throw ApplicationFailure.nonRetryable(
          errorText(
            ErrorType.AgentNotFound,
            `run ${runId} of agent ${input.agentId}, which holds turn ${input.turn}, is gone (past the namespace's retention).`,
          ),
          ErrorType.AgentNotFound,
        );
      throw error;
    }
    if (answer.kind === 'elsewhere') {
      runId = answer.runId;
      continue;
    }
    if (answer.kind === 'missing')
      throw ApplicationFailure.nonRetryable(
        errorText(ErrorType.ConversationMismatch, `agent ${input.agentId}: ${answer.reason}`),
        ErrorType.ConversationMismatch,
      );
    const hash = conversationHashOf(answer.messages);
    if (hash !== input.hash)
      throw ApplicationFailure.nonRetryable(
        errorText(
          ErrorType.ConversationMismatch,
          `agent ${input.agentId}'s conversation at turn ${input.turn} does not hash to what was recorded (${hash}, expected ${input.hash}).`,
        ),
        ErrorType.ConversationMismatch,
      );
    return answer;
  }
  throw ApplicationFailure.nonRetryable(
    `agent ${input.agentId}'s turn ${input.turn} was not found within ${maxHops} runs.`,
    ErrorType.ConversationMismatch,
  );
}

/** The rewind activities that read other runs (by query), bound to the worker's client. */
export function createRewindActivities(client: Client) {
  return {
    fetchTurnConversation: (input: FetchTurnConversationInput) => fetchTurnConversation(client, input),
  };
}
