/** The Messages API request after field validation: string shorthands expanded into blocks. */
import type { EffortLevel } from '../shared/agents/effort';

/** Any content block, tool definition or system block as received (key order kept). */
export interface RequestBlock extends Record<string, unknown> {
  type: string;
}

/** A tool definition as received (custom tools have `input_schema`; server tools a versioned `type`). */
export interface ToolParam extends Record<string, unknown> {
  name: string;
}

export type CacheTtl = '5m' | '1h';

/** A validated `cache_control` (the default TTL filled in). */
export interface CacheControlParam {
  type: 'ephemeral';
  ttl: CacheTtl;
}

export interface RequestMessage {
  role: 'user' | 'assistant';
  /** A string content arrives as one text block. */
  content: RequestBlock[];
}

export interface ThinkingParam {
  type: 'enabled' | 'adaptive' | 'disabled';
  budget_tokens?: number;
}

export interface ToolChoiceParam {
  type: 'auto' | 'any' | 'tool' | 'none';
  name?: string;
}

/** A field-valid `POST /v1/messages` (or `count_tokens`) body. */
export interface MessagesRequest {
  model: string;
  /** Absent only on count_tokens. */
  maxTokens?: number;
  stream: boolean;
  system: RequestBlock[];
  /** Tool definitions as received. */
  tools: ToolParam[];
  messages: RequestMessage[];
  /** Top-level automatic caching. */
  cacheControl?: CacheControlParam;
  toolChoice?: ToolChoiceParam;
  thinking?: ThinkingParam;
  /** `output_config.effort`, checked against the model. */
  effort?: EffortLevel;
}

/** What behaviours read of one request: the request itself and the facts they match on. */
export interface RequestContext {
  /** Field- and conversation-valid request, same-role turns merged. */
  request: MessagesRequest;
  agentId?: string;
  agentType?: string;
  agentName?: string;
  systemText: string;
  /** Text blocks of the last user message that has any text. */
  latestUserText: string;
  /** Text of the last tool_result block anywhere in the conversation. */
  lastToolResultText: string;
  /** Assistant messages in the request plus compacted turns: stateless, so a retried call gets the same turn. */
  turnIndex: number;
  /** The request asks for a compaction summary (`x-subagents-purpose: compaction`). */
  compaction: boolean;
}
