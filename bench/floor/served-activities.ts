// The activities of bench:overhead's bare-SDK loops: the in-process loop's two steps — a model call
// against the model server, then the turn's tool calls — each working on a conversation the bench keeps
// in memory, so the workflow around them (bench/floor/workflows.ts, `floorServedLoop`) holds nothing
// but the Temporal SDK's own work. The durable pair (`floorDurableLoop`) moves the conversation through
// the workflow instead: each answer comes back as the activity's result, each turn's tool results as the
// local activity's, and each request's new messages go out in the model call's input — what a durable
// agent's history must hold to be its transcript, and nothing else of the runtime.
import { ApplicationFailure } from '@temporalio/activity';
import type { ContentBlock, MessageParam, ToolUseBlock } from '../../src/shared/model/messages';
import type { ToolOutcome } from '../../src/shared/tools/tool-results';
import {
  answerPending,
  modelTurn,
  runToolUses,
  toolTurn,
  type ServedConversation,
} from '../helpers/served-conversation';

export interface ServedLoopActivities {
  /** The conversation's next model call; how many tool calls the answer asks for. */
  servedModelCall(key: string): Promise<number>;
  /** The last answer's tool calls (run as a local activity, as the runtime runs Reads). */
  servedTools(key: string): Promise<void>;
  /** The next model call with the messages added since the last one (`tail`); the answer's content. */
  durableModelCall(key: string, tail: MessageParam[]): Promise<ContentBlock[]>;
  /** Tool calls of an answer, side by side (a local activity, as the runtime runs Reads); their outcomes by tool_use id. */
  durableTools(key: string, uses: ToolUseBlock[]): Promise<Record<string, ToolOutcome>>;
  /** `durableModelCall`, then the answer's tool calls in the same activity, as the runtime's model call runs a turn's leading Reads. */
  durableModelCallWithReads(
    key: string,
    tail: MessageParam[],
  ): Promise<{ content: ContentBlock[]; outcomes: Record<string, ToolOutcome> }>;
  /**
   * The last answer's tool calls answered with `results` (one text each, in order: e.g. what the background
   * children that Agent calls started answered), then the next model call; how many tool calls it asks for.
   */
  servedModelCallWithResults(key: string, results: string[]): Promise<number>;
}

export function servedLoopActivities(conversations: ReadonlyMap<string, ServedConversation>): ServedLoopActivities {
  const conversationOf = (key: string): ServedConversation => {
    const conversation = conversations.get(key);
    if (!conversation) throw ApplicationFailure.nonRetryable(`no conversation ${key} in this bench process`);
    return conversation;
  };
  const activities: ServedLoopActivities = {
    servedModelCall: async (key) => modelTurn(conversationOf(key)),
    servedTools: async (key) => toolTurn(conversationOf(key)),
    durableModelCall: async (key, tail) => {
      const conversation = conversationOf(key);
      // The worker's copy of the conversation, extended with what the workflow sent (as the runtime's conversation cache is).
      conversation.messages.push(...tail);
      await modelTurn(conversation);
      conversation.pending = [];
      return conversation.messages[conversation.messages.length - 1]!.content as ContentBlock[];
    },
    durableTools: async (key, uses) => runToolUses(conversationOf(key), uses),
    durableModelCallWithReads: async (key, tail) => {
      const content = await activities.durableModelCall(key, tail);
      const uses = content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
      return { content, outcomes: uses.length > 0 ? await runToolUses(conversationOf(key), uses) : {} };
    },
    servedModelCallWithResults: async (key, results) => {
      const conversation = conversationOf(key);
      const uses = conversation.pending;
      if (uses.length !== results.length)
        throw ApplicationFailure.nonRetryable(`${key}: ${results.length} results for ${uses.length} tool calls`);
      answerPending(
        conversation,
        Object.fromEntries(
          uses.map((use, index): [string, ToolOutcome] => [use.id, { content: results[index]!, isError: false }]),
        ),
      );
      return modelTurn(conversation);
    },
  };
  return activities;
}
