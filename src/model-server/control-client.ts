/** A small client for a model server's `/_control/*` endpoints (a server in another process). */
import { controlPaths } from './control';
import type { Behaviour, FaultSpec } from './scenario-schema';
import type { ServedReport } from './served';
import type { RecordedRequest } from './server-state';

export interface ModelServerControl {
  requests(): Promise<RecordedRequest[]>;
  /** Tokens served, in all and per agent (`GET /_control/usage`). */
  usage(): Promise<ServedReport>;
  /** Clears the request log, the prompt cache and fault counters. */
  reset(): Promise<void>;
  setBehaviour(behaviour: Behaviour): Promise<void>;
  injectFault(fault: FaultSpec): Promise<void>;
}

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(new URL(path, baseUrl), {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`model server ${method} ${path} failed with ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/** Controls the server at `baseUrl` (e.g. `http://127.0.0.1:8788`). */
export function modelServerControl(baseUrl: string): ModelServerControl {
  return {
    requests: async () => (await call(baseUrl, 'GET', controlPaths.requests)) as RecordedRequest[],
    usage: async () => (await call(baseUrl, 'GET', controlPaths.usage)) as ServedReport,
    reset: async () => {
      await call(baseUrl, 'POST', controlPaths.reset, {});
    },
    setBehaviour: async (behaviour) => {
      await call(baseUrl, 'POST', controlPaths.behaviour, behaviour);
    },
    injectFault: async (fault) => {
      await call(baseUrl, 'POST', controlPaths.faults, fault);
    },
  };
}
