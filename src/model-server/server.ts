// A local Messages API server the real SDK talks to through `baseURL` (docs/model-server.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from './api-error';
import { PromptCache } from './cache';
import { handleControl } from './control';
import { FaultBook } from './faults';
import { flattenHeaders, readBody, redactCredentials, sendApiError, type Exchange } from './http-io';
import { newRequestId } from './ids';
import { handleCountTokens, handleMessages } from './messages-handler';
import { parseBehaviour, parseFaultSpec, type Behaviour, type FaultSpec } from './scenario-schema';
import { nothingServed, servedReport, type ServedReport } from './served';
import type { RecordedRequest, ServerState } from './server-state';

export type { Behaviour, FaultSpec, Scenario, Turn } from './scenario-schema';
export type { RecordedRequest } from './server-state';
export type { ApiUsage } from './reply';
export type { ServedReport, ServedTotals, ServedUsage } from './served';

export interface ModelServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `{ kind: 'demo' }`. */
  behaviour?: Behaviour;
  /** If set, only this key is accepted; otherwise any non-empty x-api-key or Bearer token. */
  apiKey?: string;
  /** Reject consecutive same-role turns (legacy API) instead of merging them. */
  strictRoles?: boolean;
  /** Clock for request start times and cache TTLs (tests move it forward). */
  now?: () => number;
}

export interface ModelServer {
  /** `http://HOST:PORT`, usable as the SDK's `baseURL`. */
  url: string;
  port: number;
  requests(): RecordedRequest[];
  /** Tokens served by the logged messages requests, in all and per agent (as `GET /_control/usage`). */
  usage(): ServedReport;
  clearRequests(): void;
  setBehaviour(behaviour: Behaviour): void;
  injectFault(fault: FaultSpec): void;
  clearCache(): void;
  close(): Promise<void>;
}

function route(state: ServerState, exchange: Exchange, method: string, path: string): Promise<void> | void {
  if (path.startsWith('/_control/')) return handleControl(state, exchange, method, path);
  exchange.record = {
    seq: state.nextSeq++,
    method,
    path,
    headers: redactCredentials(exchange.headers),
    rawBody: exchange.body.toString('utf8'),
    status: 0,
    receivedAt: exchange.startedAt,
  };
  state.log.push(exchange.record);
  const record = exchange.record;
  exchange.response.once('close', () => {
    if (!exchange.response.writableFinished) record.abortedAt = state.now();
  });
  if (method === 'POST' && path === '/v1/messages') {
    record.served = nothingServed();
    return handleMessages(state, exchange);
  }
  if (method === 'POST' && path === '/v1/messages/count_tokens') return handleCountTokens(state, exchange);
  throw new ApiError(404, 'not_found_error', 'Not Found');
}

async function handle(state: ServerState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const startedAt = state.now();
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const body = await readBody(request);
  const exchange: Exchange = { response, headers: flattenHeaders(request), body, requestId: newRequestId(), startedAt };
  try {
    await route(state, exchange, method, path);
  } catch (error) {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    if (!(error instanceof ApiError)) console.error('model-server: unexpected error', error);
    sendApiError(exchange, error instanceof ApiError ? error : new ApiError(500, 'api_error', 'Internal server error'));
  }
}

/** Starts a server; resolves once it listens. */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const state: ServerState = {
    behaviour: parseBehaviour(options.behaviour ?? { kind: 'demo' }),
    cache: new PromptCache(),
    faults: new FaultBook(),
    log: [],
    nextSeq: 1,
    strictRoles: options.strictRoles ?? false,
    now: options.now ?? Date.now,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
  };
  const server = createServer((request, response) => {
    // Only a failed body read gets here: the client went away.
    handle(state, request, response).catch(() => response.destroy());
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests: () => structuredClone(state.log),
    usage: () => servedReport(state.log),
    clearRequests: () => {
      state.log.length = 0;
    },
    setBehaviour: (behaviour) => {
      state.behaviour = parseBehaviour(behaviour);
    },
    injectFault: (fault) => state.faults.inject(parseFaultSpec(fault)),
    clearCache: () => state.cache.clear(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
