// The worker's view of each model call: when its response finished arriving (the server log only knows when it started).
import type { ClientOptions } from '@anthropic-ai/sdk';

type Fetch = NonNullable<ClientOptions['fetch']>;

/** One HTTP call of the model client, by the agent that made it. */
export interface TimedCall {
  agentId: string;
  path: string;
  startedAt: number;
  /** 0 until the response headers arrived. */
  status: number;
  /** When the last byte of the body arrived; undefined while it streams, or if it was cut. */
  finishedAt?: number;
}

/** A fetch for the Anthropic client that records every call in `calls`. */
export function createTimedFetch(): { fetch: Fetch; calls: TimedCall[] } {
  const calls: TimedCall[] = [];
  const timedFetch: Fetch = async (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
    const url = new URL(input instanceof Request ? input.url : String(input));
    const call: TimedCall = {
      agentId: headers.get('x-subagents-agent-id') ?? '',
      path: url.pathname,
      startedAt: Date.now(),
      status: 0,
    };
    calls.push(call);
    const response = await fetch(input, init);
    call.status = response.status;
    if (!response.body) {
      call.finishedAt = Date.now();
      return response;
    }
    // flush runs once the server's last chunk has passed through, as the SDK reads the stream.
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({ flush: () => void (call.finishedAt = Date.now()) }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: timedFetch, calls };
}

/** Successful /v1/messages calls of one agent, in order (the n-th is its turn n when nothing was retried). */
export function modelCallsOf(calls: readonly TimedCall[], agentId: string): TimedCall[] {
  return calls.filter((call) => call.agentId === agentId && call.path === '/v1/messages' && call.status === 200);
}
