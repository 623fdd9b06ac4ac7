/** What a behaviour answers and how it becomes the API's `Message` JSON with usage. */
import type { StopReason } from '../shared/model/messages';
import type { CacheAccounting } from './cache';
import { blockTokens } from './tokens';

export type OutputBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'server_tool_use'; id: string; name: 'web_search'; input: Record<string, unknown> }
  | { type: 'web_search_tool_result'; tool_use_id: string; content: unknown };

/** A behaviour's answer to one request. */
export interface ModelReply {
  content: OutputBlock[];
  stopReason: StopReason;
}

/** The `usage` object of a response. */
export interface ApiUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  /** Present when the server ran server tools (web search) for the reply. */
  server_tool_use?: { web_search_requests: number; web_fetch_requests: number };
  service_tier: 'standard';
}

/** The response `Message`. */
export interface ApiMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  stop_details: null;
  usage: ApiUsage;
}

/** Output tokens by the input estimate applied to each block; never 0 (as the API). */
export const outputTokens = (content: OutputBlock[]): number =>
  Math.max(
    1,
    content.reduce((sum, block) => sum + blockTokens(block), 0),
  );

/** Builds the usage object from cache accounting and the reply. */
export function buildUsage(accounting: CacheAccounting, content: OutputBlock[]): ApiUsage {
  return {
    input_tokens: accounting.inputTokens,
    cache_creation_input_tokens: accounting.cacheCreationInputTokens,
    cache_read_input_tokens: accounting.cacheReadInputTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: accounting.ephemeral5mInputTokens,
      ephemeral_1h_input_tokens: accounting.ephemeral1hInputTokens,
    },
    output_tokens: outputTokens(content),
    ...serverToolUsage(content),
    service_tier: 'standard',
  };
}

/** `server_tool_use` usage when the reply searched: one request per server_tool_use block. */
function serverToolUsage(content: OutputBlock[]): Pick<ApiUsage, 'server_tool_use'> {
  const searches = content.filter((block) => block.type === 'server_tool_use').length;
  return searches > 0 ? { server_tool_use: { web_search_requests: searches, web_fetch_requests: 0 } } : {};
}

export function buildMessage(id: string, model: string, reply: ModelReply, usage: ApiUsage): ApiMessage {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: null,
    stop_details: null,
    usage,
  };
}
