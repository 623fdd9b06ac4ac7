// The activities of bench:overhead's bare-SDK loop: the in-process loop's two steps — a model call
// against the model server, then the turn's tool calls — each working on a conversation the bench keeps
// in memory, so the workflow around them (bench/floor/workflows.ts, `floorServedLoop`) holds nothing
// but the Temporal SDK's own work.
import { ApplicationFailure } from '@temporalio/activity';
import { modelTurn, toolTurn, type ServedConversation } from '../helpers/served-conversation';

export interface ServedLoopActivities {
  /** The conversation's next model call; how many tool calls the answer asks for. */
  servedModelCall(key: string): Promise<number>;
  /** The last answer's tool calls (run as a local activity, as the runtime runs Reads). */
  servedTools(key: string): Promise<void>;
}

export function servedLoopActivities(conversations: ReadonlyMap<string, ServedConversation>): ServedLoopActivities {
  const conversationOf = (key: string): ServedConversation => {
    const conversation = conversations.get(key);
    if (!conversation) throw ApplicationFailure.nonRetryable(`no conversation ${key} in this bench process`);
    return conversation;
  };
  return {
    servedModelCall: async (key) => modelTurn(conversationOf(key)),
    servedTools: async (key) => toolTurn(conversationOf(key)),
  };
}
