import Anthropic from '@anthropic-ai/sdk';
import { startModelServer, type ModelServer, type ModelServerOptions } from '../../src/model-server/server';

/** A server on a free port and a real SDK client pointed at it (no SDK retries). */
export async function startTestServer(
  options: ModelServerOptions = {},
): Promise<{ server: ModelServer; client: Anthropic }> {
  const server = await startModelServer({ port: 0, ...options });
  return { server, client: clientFor(server) };
}

export function clientFor(
  server: ModelServer,
  options: { apiKey?: string; maxRetries?: number; headers?: Record<string, string> } = {},
): Anthropic {
  return new Anthropic({
    apiKey: options.apiKey ?? 'test',
    baseURL: server.url,
    maxRetries: options.maxRetries ?? 0,
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  });
}

/** Raw POST, for bodies the SDK would not send. */
export async function postRaw(
  server: ModelServer,
  path: string,
  body: string,
  headers: Record<string, string> = { 'x-api-key': 'test' },
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text === '' ? undefined : (JSON.parse(text) as unknown),
    headers: response.headers,
  };
}

/** The `error.message` of an API error body. */
export function errorMessage(json: unknown): string | undefined {
  return (json as { error?: { message?: string } } | undefined)?.error?.message;
}

export const text = (value: string): { type: 'text'; text: string } => ({ type: 'text', text: value });
