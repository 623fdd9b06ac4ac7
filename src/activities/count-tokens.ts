import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { countsTokens, type CountTokensInput, type CountTokensResult, type CountTokensSetting } from '../shared/model/count-tokens';
import { buildModelRequest } from './request-builder';
import { definitionsFor } from './tool-catalog';

/** Longer than this, counting costs more than the estimate's error: the call goes on with the estimate. */
const countTimeoutMs = 10_000;

/**
 * `countRequestTokens`: the input tokens of the request a model call would send, by the API's
 * `count_tokens` (docs/budgets.md). The body is the model activity's own (`buildModelRequest`), without
 * `max_tokens` and the effort, which count_tokens does not take and which do not change the input.
 * Never throws: a failed count is a result, and the call reserves its estimate.
 */
export function createCountTokensActivities(dependencies: { anthropic: Anthropic; setting: CountTokensSetting }) {
  const enabled = countsTokens(dependencies.setting, dependencies.anthropic.baseURL);

  async function countRequestTokens(input: CountTokensInput): Promise<CountTokensResult> {
    if (!enabled) return { skipped: 'off' };
    const { max_tokens: _maxTokens, output_config: _effort, ...body } = buildModelRequest({
      model: input.model,
      maxTokens: 1,
      systemPrompt: input.systemPrompt,
      tools: definitionsFor(input.tools, input.extraTools),
      messages: input.messages,
      ...(input.thinking ? { thinking: input.thinking } : {}),
    });
    try {
      const counted = await dependencies.anthropic.messages.countTokens(body as Anthropic.Messages.MessageCountTokensParams, {
        signal: Context.current().cancellationSignal,
        timeout: countTimeoutMs,
        headers: { 'x-subagents-agent-id': input.agentId },
      });
      return { inputTokens: counted.input_tokens };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  }

  return { countRequestTokens };
}
