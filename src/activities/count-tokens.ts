import { agentHeaders } from '../shared/model/agent-headers';
import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import {
  countsTokens,
  type CountTokensInput,
  type CountTokensResult,
  type CountTokensSetting,
} from '../shared/model/count-tokens';
import { buildModelRequest } from './request-builder';
import { definitionsFor } from './tool-catalog';

/** Longer than this, counting costs more than the estimate's error: the call goes on with the estimate. */
const countTimeoutMs = 10_000;

/** `countRequestTokens`: a call's input tokens by `count_tokens`; a failed count is a result (docs/budgets.md). */
export function createCountTokensActivities(dependencies: { anthropic: Anthropic; setting: CountTokensSetting }) {
  const enabled = countsTokens(dependencies.setting, dependencies.anthropic.baseURL);

  async function countRequestTokens(input: CountTokensInput): Promise<CountTokensResult> {
    if (!enabled) return { skipped: 'off' };
    const {
      max_tokens: _maxTokens,
      output_config: _effort,
      ...body
    } = buildModelRequest({
      model: input.model,
      maxTokens: 1,
      systemPrompt: input.systemPrompt,
      tools: definitionsFor(input.tools, input.extraTools),
      messages: input.messages,
      ...(input.thinking ? { thinking: input.thinking } : {}),
    });
    try {
      const counted = await dependencies.anthropic.messages.countTokens(
        body as Anthropic.Messages.MessageCountTokensParams,
        {
          signal: Context.current().cancellationSignal,
          timeout: countTimeoutMs,
          headers: agentHeaders({ id: input.agentId }),
        },
      );
      return { inputTokens: counted.input_tokens };
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error) };
    }
  }

  return { countRequestTokens };
}
