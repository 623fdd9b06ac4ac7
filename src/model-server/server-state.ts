/** The mutable state of one server: behaviour, cache, faults and the request log. */
import type { EffortLevel } from '../shared/agents/effort';
import type { PromptCache } from './cache';
import type { FaultBook } from './faults';
import type { ApiUsage } from './reply';
import type { Behaviour } from './scenario-schema';

/** The tokens one request served (all 0 until its response started): src/model-server/served.ts counts them. */
export interface ServedUsage {
  inputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  outputTokens: number;
  /** The final usage went out (message_delta, or the whole JSON body): `outputTokens` is the reply's usage. */
  complete: boolean;
}

/** One request as the server received and answered it. */
export interface RecordedRequest {
  seq: number;
  method: string;
  path: string;
  /** Lower-cased names; `x-api-key` and `authorization` values are replaced by "[redacted]". */
  headers: Record<string, string>;
  /** Exactly the bytes received, as UTF-8, for byte-for-byte prefix comparisons. */
  rawBody: string;
  /** 0 while no response has started. */
  status: number;
  agentKey?: string;
  turnIndex?: number;
  /** `output_config.effort` of the request, when it had one (accounted per request). */
  effort?: EffortLevel;
  /** The usage object the reply carries (set once the reply is built, also when its stream is then cut). */
  usage?: ApiUsage;
  /** Messages requests only: what was billed, by what was written before the response ended (served.ts). */
  served?: ServedUsage;
  /** Server clock (ms) when the request arrived. */
  receivedAt: number;
  /** Server clock (ms) when the client closed the connection before the response was complete (an aborted call). */
  abortedAt?: number;
}

export interface ServerState {
  behaviour: Behaviour;
  readonly cache: PromptCache;
  readonly faults: FaultBook;
  readonly log: RecordedRequest[];
  nextSeq: number;
  readonly strictRoles: boolean;
  readonly apiKey?: string;
  readonly now: () => number;
}
