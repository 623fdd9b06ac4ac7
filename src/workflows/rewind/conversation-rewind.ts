import type { TurnBoundary, TurnConversation } from '../../shared/rewind/turns';
import { appendUserText } from '../../shared/tools/tool-results';
import type { Conversation } from '../context/conversation';

/** A boundary's conversation as the run that holds it answered (the `fetchTurnConversation` activity). */
export type FetchedConversation = Pick<
  Extract<TurnConversation, { kind: 'conversation' }>,
  'messages' | 'logIndices'
> & {
  boundary: Pick<TurnBoundary, 'runId'>;
};

/** Where fetched messages sit in the log of the run that answered, when it said (runs before this build did not). */
export function copiedFrom(fetched: FetchedConversation): { runId: string; logIndices: number[] } | undefined {
  return fetched.logIndices ? { runId: fetched.boundary.runId, logIndices: fetched.logIndices } : undefined;
}

/**
 * A rewind's conversation (docs/rewind.md): back to the boundary's, marked in the transcript log. A boundary of this
 * run is rebuilt from its log by index, nothing copied; one held by an earlier run is fetched and copied into the log
 * with where it came from, so the joined transcript shows those messages once.
 */
export async function returnConversationTo(
  conversation: Conversation,
  boundary: Pick<TurnBoundary, 'turn' | 'runId' | 'epoch' | 'logLength' | 'messageCount'>,
  runId: string,
  by: string | undefined,
  fetch: () => Promise<FetchedConversation>,
): Promise<void> {
  if (boundary.runId === runId) {
    if (boundary.epoch === conversation.position.epoch) {
      conversation.markRewind(boundary.turn, by);
      conversation.truncateTo(boundary.messageCount);
      return;
    }
    if (conversation.projectionIndicesAt(boundary.epoch, boundary.logLength)?.length === boundary.messageCount) {
      conversation.markRewind(boundary.turn, by);
      conversation.returnTo(boundary.epoch, boundary.logLength);
      return;
    }
  }
  const fetched = await fetch();
  conversation.markRewind(boundary.turn, by);
  conversation.replaceWith(fetched.messages, copiedFrom(fetched));
}

/** A rewind's prompt after the boundary's conversation: in its last user message (after tool results), or a new one. */
export function continueWithPrompt(conversation: Conversation, prompt: string): void {
  const before = conversation.messages.length;
  const messages = appendUserText(conversation.messages, prompt);
  // Roles must alternate: the merged message takes the place of the boundary's last one.
  if (messages.length === before) conversation.truncateTo(before - 1);
  conversation.append(messages[messages.length - 1]!);
}
