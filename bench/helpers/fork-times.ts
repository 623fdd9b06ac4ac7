// One fork of a finished agent, timed from the fork() call: to its return, to the fork's first model request (server
// clock), and to its result; with that request's usage and whether its prefix is the source's, byte for byte.
import type { AgentHandle } from '../../src/client/client';
import type { ForkOptions } from '../../src/client/branches';
import type { ModelServer, RecordedRequest } from '../../src/model-server/server';
import { requestsOf } from './model-log';
import { withTimeout } from './wait';

/** What one fork took and what its first request read from the cache. */
export interface ForkTiming {
  agentId: string;
  turn: number;
  worktree: boolean;
  /** fork() call → it returned (the fork workflow started). */
  returnedMs: number;
  /** fork() call → the fork's first model request arrived at the model server. */
  firstRequestMs: number;
  /** fork() call → the fork's result. */
  resultMs: number;
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  /** system, tools and messages of the first request equal the source's request after the same turn. */
  prefixIdentical: boolean;
  requests: RecordedRequest[];
}

interface RequestBody {
  system: unknown;
  tools: unknown;
  messages: unknown[];
}

const answered = (modelServer: ModelServer, agentId: string) =>
  requestsOf(modelServer, agentId).filter((request) => request.status === 200);

const prefixOf = (request: RecordedRequest) => {
  const body = JSON.parse(request.rawBody) as RequestBody;
  return JSON.stringify([body.system, body.tools, body.messages]);
};

/** Forks `source` at `options.turn` (into `options.agentId`) and waits for the fork's result. */
export async function timeFork(
  modelServer: ModelServer,
  source: AgentHandle,
  options: ForkOptions & { agentId: string },
): Promise<ForkTiming> {
  const startedAt = Date.now();
  const forked = await source.fork(options);
  const returnedMs = Date.now() - startedAt;
  const result = await withTimeout(forked.handle.result(), 180_000, `fork ${options.agentId}'s result`);
  const resultMs = Date.now() - startedAt;
  if (result.status !== 'completed') throw new Error(`fork ${options.agentId} ended ${result.status}: ${result.error}`);
  const requests = answered(modelServer, options.agentId);
  const first = requests[0];
  if (!first?.usage) throw new Error(`fork ${options.agentId} made no model request`);
  // The source's request after turn N is its (N+1)th: N assistant messages in it.
  const sourceRequest = answered(modelServer, source.agentId)[options.turn];
  return {
    agentId: options.agentId,
    turn: options.turn,
    worktree: options.worktree === true,
    returnedMs,
    firstRequestMs: first.receivedAt - startedAt,
    resultMs,
    inputTokens: first.usage.input_tokens,
    cacheReadInputTokens: first.usage.cache_read_input_tokens,
    cacheCreationInputTokens: first.usage.cache_creation_input_tokens,
    prefixIdentical: sourceRequest !== undefined && prefixOf(sourceRequest) === prefixOf(first),
    requests,
  };
}
