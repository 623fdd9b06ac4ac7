import { describe, expect, it } from 'vitest';
import { webToolLimits } from '../../src/shared/tools/web-tool-definitions';
import { toolModelCallBound, webSearchInputTokensBound } from '../../src/shared/budget/web-tool-budget';
import { answerPrompt } from '../../src/activities/web/web-fetch';
import { estimateTextTokens } from '../../src/shared/model/context-estimate';

describe("the reservation of a web tool's model call", () => {
  it('covers the largest WebFetch request: the page cut at its limit, a URL at its limit, the prompt and the instructions', () => {
    const prompt = 'What does the page say about release 7? '.repeat(20);
    const url = `https://example.com/${'a'.repeat(webToolLimits.maxUrlChars - 20)}`;
    const cut = `${'x'.repeat(webToolLimits.maxContentChars)}\n\n[The page was cut at ${webToolLimits.maxContentChars} of 9999999 characters.]`;
    const largest = answerPrompt({ url, status: 200, contentType: 'text/html', bytes: 1, markdown: '' }, cut, prompt);
    const bound = toolModelCallBound('WebFetch', { url, prompt });
    // The local model server counts input as the estimate does: ASCII text at 4 bytes a token.
    expect(bound.inputTokens).toBeGreaterThanOrEqual(estimateTextTokens(largest) + 20);
    expect(bound.inputTokens).toBeLessThan(estimateTextTokens(largest) + 400);
    expect(bound.maxOutputTokens).toBe(webToolLimits.maxAnswerTokens);
  });

  it('grows with the prompt, counted in UTF-8 bytes', () => {
    expect(
      toolModelCallBound('WebFetch', { prompt: 'é'.repeat(400) }).inputTokens -
        toolModelCallBound('WebFetch', { prompt: '' }).inputTokens,
    ).toBe(200);
  });

  it("holds WebSearch's fixed input estimate and the output of every call of its search loop", () => {
    expect(toolModelCallBound('WebSearch', { query: 'temporal' })).toEqual({
      inputTokens: webSearchInputTokensBound,
      maxOutputTokens: webToolLimits.maxAnswerTokens * (1 + webToolLimits.maxSearchContinuations),
    });
  });
});
