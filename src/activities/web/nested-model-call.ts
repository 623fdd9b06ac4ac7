/** The model calls WebFetch and WebSearch make themselves: headers naming who calls, usage, and error handling. */
import type Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { agentHeaders } from '../../shared/model/agent-headers';
import type { TokenUsage } from '../../shared/model/messages';
import { toModelInvocationFailure } from '../model-errors';

/** The usage of one response in the runtime's shape. */
export function usageOf(usage: Anthropic.Messages.Usage): TokenUsage {
  const searches = usage.server_tool_use?.web_search_requests ?? 0;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
    ...(searches > 0 ? { webSearchRequests: searches } : {}),
  };
}

/** Headers so the local model server (and logs) can tell a tool's own call from the agent's turns. */
export function toolCallHeaders(agentId: string, toolName: string): Record<string, string> {
  return agentHeaders({ id: `${agentId}/${toolName}`, type: toolName });
}

/** Runs a tool's model request: retryable provider errors throw, others come back as an error message. */
export async function createMessage(
  anthropic: Anthropic,
  body: Anthropic.Messages.MessageCreateParamsNonStreaming,
  options: { signal: AbortSignal; headers: Record<string, string> },
): Promise<{ message: Anthropic.Messages.Message } | { error: string }> {
  try {
    return { message: await anthropic.messages.create(body, options) };
  } catch (error) {
    const failure = toModelInvocationFailure(error);
    if (failure instanceof ApplicationFailure && failure.nonRetryable) return { error: failure.message };
    throw failure;
  }
}
