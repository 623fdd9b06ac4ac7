/** `/_control/*`: drive a server in another process (request log, served tokens, reset, behaviour, faults). */
import { ApiError } from './api-error';
import { sendApiError, sendJson, type Exchange } from './http-io';
import { parseBehaviour, parseFaultSpec, ScenarioValidationError } from './scenario-schema';
import { servedReport } from './served';
import type { ServerState } from './server-state';

/** Paths of the control endpoints. */
export const controlPaths = {
  requests: '/_control/requests',
  usage: '/_control/usage',
  reset: '/_control/reset',
  behaviour: '/_control/behaviour',
  faults: '/_control/faults',
} as const;

/** Clears the request log, the cache and all fault counters. */
export function resetState(state: ServerState): void {
  state.log.length = 0;
  state.cache.clear();
  state.faults.reset();
}

function parseJson(exchange: Exchange): unknown {
  try {
    return JSON.parse(exchange.body.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_request_error', 'control request body must be JSON');
  }
}

export function handleControl(state: ServerState, exchange: Exchange, method: string, path: string): void {
  const ok = (): void => sendJson(exchange, 200, JSON.stringify({ ok: true }));
  try {
    if (method === 'GET' && path === controlPaths.requests) return sendJson(exchange, 200, JSON.stringify(state.log));
    if (method === 'GET' && path === controlPaths.usage)
      return sendJson(exchange, 200, JSON.stringify(servedReport(state.log)));
    if (method === 'POST' && path === controlPaths.reset) {
      resetState(state);
      return ok();
    }
    if (method === 'POST' && path === controlPaths.behaviour) {
      state.behaviour = parseBehaviour(parseJson(exchange));
      return ok();
    }
    if (method === 'POST' && path === controlPaths.faults) {
      state.faults.inject(parseFaultSpec(parseJson(exchange)));
      return ok();
    }
    throw new ApiError(404, 'not_found_error', 'Not Found');
  } catch (error) {
    if (error instanceof ScenarioValidationError)
      return sendApiError(exchange, new ApiError(400, 'invalid_request_error', error.message));
    throw error;
  }
}
