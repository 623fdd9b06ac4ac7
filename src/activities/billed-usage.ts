// What a streamed call has been billed so far: the API bills from message_start on, even if the stream fails later.
import type Anthropic from '@anthropic-ai/sdk';
import type { TokenUsage } from '../shared/model/messages';
import { deltaOutputTokens } from '../shared/model/streamed-output-tokens';

/** Feed it every `streamEvent` of one call; `billed()` answers at any moment (docs/model-server.md, Served tokens). */
export class BilledUsage {
  private usage: TokenUsage | undefined;
  /** message_delta brought the final usage: later deltas (there are none in a valid stream) add nothing. */
  private final = false;

  observe(event: Anthropic.Messages.RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.usage = {
          inputTokens: usage.input_tokens,
          // Output so far is counted from the deltas, by the same rule as the server's served record.
          outputTokens: 0,
          cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
          cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
          ...webSearches(usage.server_tool_use?.web_search_requests),
        };
        this.final = false;
        return;
      }
      case 'content_block_delta':
        if (this.usage && !this.final) this.usage.outputTokens += deltaOutputTokens(event.delta);
        return;
      case 'message_delta': {
        if (!this.usage) return;
        const usage = event.usage;
        this.usage = {
          inputTokens: usage.input_tokens ?? this.usage.inputTokens,
          outputTokens: usage.output_tokens,
          cacheCreationInputTokens: usage.cache_creation_input_tokens ?? this.usage.cacheCreationInputTokens,
          cacheReadInputTokens: usage.cache_read_input_tokens ?? this.usage.cacheReadInputTokens,
          ...webSearches(usage.server_tool_use?.web_search_requests ?? this.usage.webSearchRequests),
        };
        this.final = true;
        return;
      }
      case 'content_block_start':
      case 'content_block_stop':
      case 'message_stop':
        return;
    }
  }

  /** The call's billed usage so far; undefined before message_start (nothing billed). */
  billed(): TokenUsage | undefined {
    return this.usage ? { ...this.usage } : undefined;
  }
}

/** `webSearchRequests` only when a search ran, as TokenUsage keeps it. */
const webSearches = (count: number | null | undefined): Pick<TokenUsage, 'webSearchRequests'> =>
  count ? { webSearchRequests: count } : {};
