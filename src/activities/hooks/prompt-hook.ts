// A prompt hook (Claude Code's `type: "prompt"`): one call of a small model that answers {"ok", "reason"} (docs/hooks.md).
import type Anthropic from '@anthropic-ai/sdk';
import type { TokenUsage } from '../../shared/model/messages';
import { resolveModelAlias } from '../../shared/agents/models';
import type { PromptHook } from '../../shared/policy/hook-handlers';
import { promptHookInstructions, promptHookText } from '../../shared/policy/hook-answers';
import { promptHookLimits } from '../../shared/policy/hook-limits';
import { createMessage, toolCallHeaders, usageOf } from '../web/nested-model-call';

/** The model's text answer and what the call used, or why there was none. */
export type PromptHookCall = { answer: string; usage: TokenUsage; model: string } | { error: string; model: string };

/** Asks the hook's model (its `model`, else `defaultModel`) the hook's question about this event. */
export async function askPromptHook(
  anthropic: Anthropic,
  hook: PromptHook,
  payload: Record<string, unknown>,
  options: { defaultModel: string; agentId: string; signal: AbortSignal },
): Promise<PromptHookCall> {
  const model = resolveModelAlias(hook.model ?? options.defaultModel);
  const text = promptHookText(hook.prompt, payload);
  const content =
    text.length > promptHookLimits.maxPromptChars
      ? `${text.slice(0, promptHookLimits.maxPromptChars)}\n\n[cut at ${promptHookLimits.maxPromptChars} of ${text.length} characters]`
      : text;
  const answered = await createMessage(
    anthropic,
    {
      model,
      max_tokens: promptHookLimits.maxOutputTokens,
      system: promptHookInstructions,
      messages: [{ role: 'user', content }],
    },
    { signal: options.signal, headers: toolCallHeaders(options.agentId, 'PromptHook') },
  );
  if ('error' in answered) return { error: answered.error, model };
  const answer = answered.message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  return { answer, usage: usageOf(answered.message.usage), model };
}
