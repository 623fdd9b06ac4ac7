import Anthropic from '@anthropic-ai/sdk';
import { afterEach } from 'vitest';
import type { Turn } from '../../src/model-server/scenario-schema';
import { startModelServer, type ModelServer, type ModelServerOptions } from '../../src/model-server/server';

/** A server on a free port and a real SDK client pointed at it (no SDK retries). */
export async function startTestServer(
  options: ModelServerOptions = {},
): Promise<{ server: ModelServer; client: Anthropic }> {
  const server = await startModelServer({ port: 0, ...options });
  return { server, client: clientFor(server) };
}

/** Servers started inside tests, the last one closed after each test. */
export function serverPerTest(): {
  start: (options?: ModelServerOptions) => Promise<{ server: ModelServer; client: Anthropic }>;
  current: () => ModelServer;
} {
  let server: ModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    start: async (options) => {
      const started = await startTestServer(options);
      server = started.server;
      return started;
    },
    current: () => {
      if (!server) throw new Error('start a server in this test first');
      return server;
    },
  };
}

/** A one-message request of the tiny test model. */
export const helloRequest = (maxTokens: number) => ({
  model: 'claude-test-tiny',
  max_tokens: maxTokens,
  messages: [{ role: 'user' as const, content: 'hello there' }],
});

/** Options for a server that plays `steps` to every agent. */
export const scriptedDefault = (steps: Turn[]): ModelServerOptions => ({
  behaviour: { kind: 'scripted', scenario: { agents: [], default: steps } },
});

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
