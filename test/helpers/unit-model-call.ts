// The model-call input of an agent's first turn, as the activity tests of the model call build it.
import { conversationHash } from '../../src/shared/model/conversation-hash';
import type { MessageParam } from '../../src/shared/model/messages';
import type { ModelCallInput } from '../../src/shared/model/model-call';

/** What the workflow sends for turn 1 of run `run` over the messages `opening` (a general-purpose agent on the test model), with `fields` added. */
export function firstTurnInput(
  run: { workflowId: string; runId: string },
  opening: MessageParam[],
  fields: Partial<ModelCallInput> = {},
): ModelCallInput {
  return {
    agentId: run.workflowId,
    agentType: 'general-purpose',
    runId: run.runId,
    model: 'claude-test-tiny',
    maxOutputTokens: 1000,
    messageCount: opening.length,
    conversationHash: conversationHash(opening),
    turn: 1,
    ...fields,
  };
}
