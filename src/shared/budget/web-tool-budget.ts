import { utf8Length } from '../model/context-estimate';
import type { WebToolName } from '../policy/tool-classification';
import { webToolLimits } from '../tools/web-tool-definitions';

/**
 * What the model call of a WebFetch or WebSearch reserves in a budgeted tree's ledger (docs/budgets.md,
 * "Model calls made by tools"): decided before the tool runs, so from what the workflow knows, the call's input.
 */
export interface ToolModelCallBound {
  inputTokens: number;
  maxOutputTokens: number;
}

/** WebFetch's request around the page: its URL (after same-host redirects), the instructions and the cut note. */
const webFetchFrameChars = webToolLimits.maxUrlChars + 1000;

/**
 * WebSearch's input over its whole search loop. The search results the server adds are not bounded by
 * the runtime: this is an estimate (a call with eight searches is billed some 10–25 thousand input
 * tokens); what a search uses beyond it shows in the ledger's overspendTokens.
 */
export const webSearchInputTokensBound = 32_000;

/** The reservation of one web tool call's model call(s): the page's Markdown is cut at maxContentChars, a search loop at its continuations. */
export function toolModelCallBound(name: WebToolName, input: Record<string, unknown>): ToolModelCallBound {
  if (name === 'WebFetch') {
    const prompt = typeof input.prompt === 'string' ? input.prompt : '';
    return {
      inputTokens: Math.ceil((webToolLimits.maxContentChars + webFetchFrameChars + utf8Length(prompt)) / 4),
      maxOutputTokens: webToolLimits.maxAnswerTokens,
    };
  }
  return { inputTokens: webSearchInputTokensBound, maxOutputTokens: webToolLimits.maxAnswerTokens * (1 + webToolLimits.maxSearchContinuations) };
}
