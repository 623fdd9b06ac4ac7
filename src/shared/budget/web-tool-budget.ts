import { utf8Length } from '../model/context-estimate';
import type { WebToolName } from '../policy/tool-classification';
import { webToolLimits } from '../tools/web-tool-definitions';

/** What a WebFetch or WebSearch model call reserves, from its input alone (docs/budgets.md, "Model calls made by tools"). */
export interface ToolModelCallBound {
  inputTokens: number;
  maxOutputTokens: number;
}

/** WebFetch's request around the page: its URL (after same-host redirects), the instructions and the cut note. */
const webFetchFrameChars = webToolLimits.maxUrlChars + 1000;

/** WebSearch's input over its whole loop: an estimate, since search results are unbounded (docs/budgets.md). */
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
  return {
    inputTokens: webSearchInputTokensBound,
    maxOutputTokens: webToolLimits.maxAnswerTokens * (1 + webToolLimits.maxSearchContinuations),
  };
}
