import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Default port of `subagents codec-server` (and of the endpoint `subagents dev` gives the UI). */
export const defaultCodecServerPort = 8888;
/** Default Temporal UI origin of the dev server. */
export const defaultUiOrigin = 'http://127.0.0.1:8233';

/** A payload in the remote codec protocol: metadata values and data base64-encoded. */
interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions {
  /** Applied in order to encode, in reverse to decode (as the SDK does). */
  codecs: readonly PayloadCodec[];
  /** 0 picks a free port. */
  port: number;
  /** Interface to listen on; default 127.0.0.1 (the server decrypts for anyone who can reach it). */
  host?: string;
  /** Origins allowed to call it from a browser; localhost and 127.0.0.1 spellings of each are both allowed. */
  uiOrigins: readonly string[];
  /** Largest request body accepted, default 64 MiB. */
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

/** A running codec server. */
export interface CodecServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Both spellings of a loopback origin: the UI's origin is whatever host the user typed. */
export function allowedOrigins(uiOrigins: readonly string[]): Set<string> {
  const origins = new Set<string>();
  for (const origin of uiOrigins) {
    const normalized = new URL(origin).origin;
    origins.add(normalized);
    origins.add(normalized.replace('//localhost:', '//127.0.0.1:'));
    origins.add(normalized.replace('//127.0.0.1:', '//localhost:'));
  }
  return origins;
}

function fromJson(payload: JsonPayload): Payload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? '', 'base64') };
}

function toJson(payload: Payload): JsonPayload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  );
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

function parsePayloads(body: string): JsonPayload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'Body must be JSON: {"payloads": [{"metadata": {...}, "data": "base64"}]}.');
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads) || !payloads.every((payload) => typeof payload === 'object' && payload !== null)) {
    throw new HttpError(400, 'Body must have a "payloads" array of {metadata, data} objects.');
  }
  return payloads as JsonPayload[];
}

async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new HttpError(413, `Request body is larger than ${maxBytes} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function runCodecs(
  codecs: readonly PayloadCodec[],
  operation: 'encode' | 'decode',
  payloads: Payload[],
): Promise<Payload[]> {
  const ordered = operation === 'encode' ? codecs : [...codecs].reverse();
  let result = payloads;
  for (const codec of ordered) result = await codec[operation](result);
  return result;
}

/** The Temporal UI's remote codec endpoint (/encode, /decode, also under /<namespace>/) with CORS for the UI. */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const origins = allowedOrigins(options.uiOrigins);
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const log = options.log ?? (() => {});

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const origin = request.headers.origin;
    if (origin && origins.has(origin)) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    response.setHeader('Vary', 'Origin');
    const operation = /\/(encode|decode)$/.exec(new URL(request.url ?? '/', 'http://codec').pathname)?.[1] as
      'encode' | 'decode' | undefined;
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'x-namespace, content-type');
      response.setHeader('Access-Control-Max-Age', '600');
      response.writeHead(origin && origins.has(origin) ? 204 : 403).end();
      return;
    }
    if (!operation) throw new HttpError(404, 'Not found: use POST /encode or POST /decode.');
    if (request.method !== 'POST') throw new HttpError(405, `Use POST /${operation}.`);
    const payloads = parsePayloads(await readBody(request, maxBodyBytes)).map(fromJson);
    const result = await runCodecs(options.codecs, operation, payloads);
    log(`${operation} ${payloads.length} payload(s) for namespace ${String(request.headers['x-namespace'] ?? '-')}`);
    response
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ payloads: result.map(toJson) }));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (status === 500) log(`error: ${message}`);
      if (!response.headersSent) response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Overrides the codec endpoint `subagents dev` gives the UI. */
export const codecEndpointVariable = 'SUBAGENTS_CODEC_ENDPOINT';

/** The `--ui-codec-endpoint` for `subagents dev` when a payload key is configured, else undefined. */
export function uiCodecEndpointFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env[codecEndpointVariable]?.trim();
  if (configured) return configured;
  const hasKey = Boolean(env.SUBAGENTS_PAYLOAD_KEY?.trim() || env.SUBAGENTS_PAYLOAD_OLD_KEYS?.trim());
  return hasKey ? `http://127.0.0.1:${defaultCodecServerPort}` : undefined;
}
