import type { AgentWorkflowInput } from '../../shared/agents/agent';
import { estimateTextTokens, utf8Length } from '../../shared/model/context-estimate';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { conversationLimits } from '../../shared/protocol/limits';
import { contextWindowFor } from './context-meter';

/** The largest message an agent accepts: a quarter of its context window, and a quarter of what continue-as-new can carry. */
export function maxMessageSize(input: Pick<AgentWorkflowInput, 'model' | 'limits'>): { tokens: number; bytes: number } {
  return {
    tokens: Math.floor(contextWindowFor(input) * conversationLimits.maxMessageWindowFraction),
    bytes: Math.floor(conversationLimits.maxConversationBytes / 4),
  };
}

/** Why a message is too large for this agent (a clear error that says what to do), or undefined when it fits. */
export function oversizedMessageRefusal(
  input: Pick<AgentWorkflowInput, 'model' | 'limits' | 'agentId'>,
  text: string,
): string | undefined {
  const max = maxMessageSize(input);
  const tokens = estimateTextTokens(text);
  const bytes = utf8Length(text);
  if (tokens <= max.tokens && bytes <= max.bytes) return undefined;
  return errorText(
    ErrorType.MessageTooLarge,
    `a message of ${text.length} characters (about ${tokens} tokens, ${bytes} bytes) is larger than agent ${input.agentId} accepts ` +
      `(at most ${max.tokens} tokens and ${max.bytes} bytes: a quarter of its ${contextWindowFor(input)}-token context window and of what it can carry). ` +
      'It was not delivered. Send it in smaller parts, or write it to a file in the workspace and send the path.',
  );
}

/** Refuses an oversized signalled message: tells the agent and throws for the input guard to count. */
export function refuseOversized(
  input: AgentWorkflowInput,
  from: string,
  text: string,
  tell: (notice: string) => void,
): void {
  const refusal = oversizedMessageRefusal(input, text);
  if (!refusal) return;
  tell(`[A message from ${from} was refused — ${refusal}]`);
  throw new Error(refusal);
}
