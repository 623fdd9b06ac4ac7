import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  allowedOrigins,
  startCodecServer,
  uiCodecEndpointFromEnv,
  type CodecServer,
} from '../../src/codec/codec-server';
import { createPayloadCodecs } from '../../src/codec/data-converter';
import { codecServerCommand, parseCodecServerArgs } from '../../src/cli/commands/codec-server';
import { CliError } from '../../src/cli/exit-codes';

const env = { SUBAGENTS_PAYLOAD_KEY: randomBytes(32).toString('base64'), SUBAGENTS_PAYLOAD_KEY_ID: 'ui-test' };
const uiOrigin = 'http://127.0.0.1:8233';
let server: CodecServer;

beforeAll(async () => {
  server = await startCodecServer({ codecs: createPayloadCodecs(env).codecs, port: 0, uiOrigins: [uiOrigin] });
});
afterAll(async () => {
  await server?.close();
});

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}

const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
const fromJson = (payload: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  ),
  data: Buffer.from(payload.data, 'base64'),
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: uiOrigin, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('codec server (the Temporal UI remote codec protocol over real HTTP)', () => {
  it('answers the CORS preflight for the UI origin, in both loopback spellings, with credentials', async () => {
    for (const origin of [uiOrigin, 'http://localhost:8233']) {
      const response = await fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-namespace,content-type',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(response.headers.get('access-control-allow-headers')?.split(/,\s*/).sort()).toEqual([
        'content-type',
        'x-namespace',
      ]);
    }
  });

  it('refuses the preflight of another origin and gives it no CORS headers', async () => {
    const response = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const posted = await post('/decode', { payloads: [] }, { origin: 'http://evil.example' });
    expect(posted.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('encodes then decodes payloads, with CORS headers on the response', async () => {
    const originals = [
      defaultPayloadConverter.toPayload({ prompt: 'UI-SECRET-PROMPT' }),
      defaultPayloadConverter.toPayload('x'.repeat(20_000)),
    ];
    const encodedResponse = await post('/encode', { payloads: originals.map(toJson) });
    expect(encodedResponse.status).toBe(200);
    expect(encodedResponse.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    const encoded = ((await encodedResponse.json()) as { payloads: JsonPayload[] }).payloads;
    expect(encoded).toHaveLength(2);
    expect(Buffer.from(encoded[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(encoded[0]!.metadata['encryption-key-id']!, 'base64').toString()).toBe('ui-test');
    expect(Buffer.from(encoded[0]!.data, 'base64').toString()).not.toContain('UI-SECRET-PROMPT');

    const decodedResponse = await post('/decode', { payloads: encoded });
    expect(decodedResponse.status).toBe(200);
    const decoded = ((await decodedResponse.json()) as { payloads: JsonPayload[] }).payloads.map(fromJson);
    expect(decoded.map((payload) => defaultPayloadConverter.fromPayload(payload))).toEqual([
      { prompt: 'UI-SECRET-PROMPT' },
      'x'.repeat(20_000),
    ]);
  });

  it('passes plain payloads through /decode and serves /<namespace>/decode too', async () => {
    const plain = toJson(defaultPayloadConverter.toPayload({ plain: true }));
    const response = await post('/default/decode', { payloads: [plain] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { payloads: JsonPayload[] }).payloads).toEqual([plain]);
  });

  it('answers bad requests with a JSON error and the right status', async () => {
    const notJson = await post('/decode', 'nope');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: string }).error).toContain('Body must be JSON');
    expect((await post('/decode', { nothing: 1 })).status).toBe(400);
    expect((await post('/elsewhere', { payloads: [] })).status).toBe(404);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    const tampered = toJson(defaultPayloadConverter.toPayload('x'));
    tampered.metadata = {
      encoding: Buffer.from('binary/encrypted').toString('base64'),
      'encryption-key-id': Buffer.from('gone').toString('base64'),
    };
    const unknownKey = await post('/decode', { payloads: [tampered] });
    expect(unknownKey.status).toBe(500);
    expect(((await unknownKey.json()) as { error: string }).error).toContain('key id "gone"');
  });

  it('allows both loopback spellings of each UI origin', () => {
    expect([...allowedOrigins(['http://localhost:8233/'])].sort()).toEqual([
      'http://127.0.0.1:8233',
      'http://localhost:8233',
    ]);
  });
});

describe('subagents codec-server command', () => {
  it('parses its arguments and rejects bad ones', () => {
    expect(parseCodecServerArgs([])).toEqual({ port: 8888, host: '127.0.0.1', uiOrigins: ['http://127.0.0.1:8233'] });
    expect(
      parseCodecServerArgs(['--port', '0', '--ui-origin', 'http://a:1', '--ui-origin', 'https://b']),
    ).toMatchObject({ port: 0, uiOrigins: ['http://a:1', 'https://b'] });
    expect(() => parseCodecServerArgs(['--port', 'x'])).toThrow(/--port must be an integer/);
    expect(() => parseCodecServerArgs(['--ui-origin', 'ftp://x'])).toThrow(/--ui-origin must be an http/);
    expect(() => parseCodecServerArgs(['--bogus'])).toThrow(CliError);
  });

  it('refuses to start with a bad key, naming the variable', async () => {
    const error = await codecServerCommand(
      ['--port', '0'],
      { SUBAGENTS_PAYLOAD_KEY: 'c2hvcnQ=' },
      Promise.resolve(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as Error).message).toContain('SUBAGENTS_PAYLOAD_KEY must be the base64 encoding of exactly 32 bytes');
  });

  it('serves until stopped and says where', async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = codecServerCommand(['--port', '0'], env, stopped);
    await vi.waitFor(() => expect(lines.join('\n')).toContain('codec server listening on http://127.0.0.1:'));
    const url = /listening on (\S+)/.exec(lines[0]!)![1]!;
    const response = await fetch(`${url}/decode`, { method: 'POST', body: JSON.stringify({ payloads: [] }) });
    expect(await response.json()).toEqual({ payloads: [] });
    expect(lines[0]).toContain('AES-256-GCM key "ui-test"');
    stop();
    expect(await running).toBe(0);
    log.mockRestore();
    await expect(fetch(`${url}/decode`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('gives `subagents dev` a UI codec endpoint only when a key is configured', () => {
    expect(uiCodecEndpointFromEnv({})).toBeUndefined();
    expect(uiCodecEndpointFromEnv(env)).toBe('http://127.0.0.1:8888');
    expect(uiCodecEndpointFromEnv({ ...env, SUBAGENTS_CODEC_ENDPOINT: 'https://codec.example' })).toBe(
      'https://codec.example',
    );
  });
});
