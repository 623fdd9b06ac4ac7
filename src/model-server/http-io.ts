/** Reading bodies and writing JSON / error responses, recording the status on the way out. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, type ApiError } from './api-error';
import type { RecordedRequest } from './server-state';

/** One request being handled. */
export interface Exchange {
  response: ServerResponse;
  headers: Record<string, string>;
  body: Buffer;
  requestId: string;
  startedAt: number;
  /** Absent for control requests, which are not logged. */
  record?: RecordedRequest;
}

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Lower-cased header names; repeated headers joined with ", ". */
export function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

const credentialHeaders = new Set(['x-api-key', 'authorization']);

/** The headers as logged: credentials replaced, so the request log never holds a key. */
export function redactCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, credentialHeaders.has(name) ? '[redacted]' : value]),
  );
}

/** Marks the response as started in the request log. */
export function noteStatus(exchange: Exchange, status: number): void {
  if (exchange.record) exchange.record.status = status;
}

export function sendJson(exchange: Exchange, status: number, body: string, headers: Record<string, string> = {}): void {
  const { response } = exchange;
  if (response.destroyed || response.headersSent) return;
  noteStatus(exchange, status);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'request-id': exchange.requestId,
    ...headers,
  });
  response.end(body);
}

export function sendApiError(exchange: Exchange, error: ApiError): void {
  // As the API: client errors say "do not retry"; 429 and 5xx leave it to the status.
  const noRetry =
    error.status >= 400 && error.status < 500 && error.status !== 429 && error.status !== 408 && error.status !== 409;
  sendJson(exchange, error.status, errorBody(error.type, error.message, exchange.requestId), {
    ...(noRetry ? { 'x-should-retry': 'false' } : {}),
    ...error.headers,
  });
}
