/** http hooks against real local HTTP servers: the POST, headers and their env vars, egress refusals, caps, failures. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultHttpHookPolicy,
  expandHookHeaders,
  postHookEvent,
  type HttpHookPolicy,
} from '../../../src/activities/hooks/http-hook';
import { interpretHttpAnswer } from '../../../src/shared/policy/hook-answers';
import { noPrivateAddresses, parsePrivateAllowance } from '../../../src/shared/policy/address-policy';
import type { HttpHook } from '../../../src/shared/policy/hook-handlers';

let server: Server;
let base: string;
const received: Array<{ url: string; method: string; headers: IncomingHttpHeaders; body: string }> = [];

const deny = JSON.stringify({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not here' },
});

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ url: request.url ?? '', method: request.method ?? '', headers: request.headers, body });
      const path = request.url ?? '/';
      if (path === '/deny') return void response.writeHead(200, { 'content-type': 'application/json' }).end(deny);
      if (path === '/empty') return void response.writeHead(204).end();
      if (path === '/fail') return void response.writeHead(503).end('down for maintenance');
      if (path === '/huge') return void response.writeHead(200).end(`{"reason": "${'x'.repeat(200_000)}"}`);
      if (path === '/redirect-private')
        return void response.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      if (path === '/hang') return; // never answers
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});
beforeEach(() => {
  received.length = 0;
});

// The test server is on loopback: allowed as an operator would allow it.
const loopback: HttpHookPolicy = defaultHttpHookPolicy(parsePrivateAllowance('127.0.0.1'));
const hook = (path: string, more: Partial<HttpHook> = {}): HttpHook => ({
  type: 'http',
  url: `${base}${path}`,
  ...more,
});
const payload = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } };

describe('postHookEvent', () => {
  it('POSTs the event as JSON and reads a 2xx JSON body as a command hook reads its stdout', async () => {
    const outcome = await postHookEvent(hook('/deny'), payload, { policy: loopback, timeoutMs: 5_000 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/deny' });
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received[0]!.body)).toEqual(payload);
    expect(interpretHttpAnswer('PreToolUse', 'http x', outcome)).toMatchObject({
      kind: 'success',
      permission: 'deny',
      blocked: true,
      reason: 'not here',
    });
    const empty = await postHookEvent(hook('/empty'), payload, { policy: loopback, timeoutMs: 5_000 });
    expect(interpretHttpAnswer('PreToolUse', 'http x', empty)).toEqual({ command: 'http x', kind: 'success' });
  });

  it('fills header variables listed in allowedEnvVars only; others become empty and never leak', async () => {
    const env = { HOOK_TOKEN: 'tok-123', SECRET_KEY: 'do-not-send', HOME: '/home/x' };
    await postHookEvent(
      hook('/ok', {
        headers: { Authorization: 'Bearer $HOOK_TOKEN', 'X-Other': '${SECRET_KEY}|$HOME|$NOT_SET' },
        allowedEnvVars: ['HOOK_TOKEN'],
      }),
      payload,
      { policy: loopback, timeoutMs: 5_000, env },
    );
    const headers = received[0]!.headers;
    expect(headers.authorization).toBe('Bearer tok-123');
    expect(headers['x-other']).toBe('||');
    expect(JSON.stringify(received[0])).not.toContain('do-not-send');
    expect(JSON.stringify(received[0])).not.toContain('/home/x');
  });

  it('refuses a header value with CR/LF, written or filled from a variable: nothing is sent', async () => {
    const written = await postHookEvent(hook('/ok', { headers: { 'X-A': 'a\r\nX-Injected: yes' } }), payload, {
      policy: loopback,
      timeoutMs: 5_000,
    });
    const filled = await postHookEvent(
      hook('/ok', { headers: { 'X-A': '$EVIL' }, allowedEnvVars: ['EVIL'] }),
      payload,
      { policy: loopback, timeoutMs: 5_000, env: { EVIL: 'x\nX-Injected: yes' } },
    );
    for (const outcome of [written, filled]) {
      expect(outcome).toEqual({ type: 'failed', reason: expect.stringContaining('line break') });
      expect(interpretHttpAnswer('PreToolUse', 'h', outcome)).toMatchObject({ kind: 'error' });
    }
    expect(received).toHaveLength(0);
    expect(expandHookHeaders({ headers: { A: 'x\u0000y' } }, {})).toHaveProperty('problem');
    // A value Node cannot send (outside Latin-1) is a failed hook, not a crash.
    const unsendable = await postHookEvent(
      hook('/ok', { headers: { 'X-A': '$NAME' }, allowedEnvVars: ['NAME'] }),
      payload,
      { policy: loopback, timeoutMs: 5_000, env: { NAME: 'レビュー' } },
    );
    expect(unsendable).toMatchObject({ type: 'failed', reason: expect.stringContaining('could not be made') });
    expect(received).toHaveLength(0);
  });

  it('refuses private and loopback addresses unless the worker allows them, literal or resolved, with a clear notice', async () => {
    const strict = defaultHttpHookPolicy(noPrivateAddresses);
    for (const url of [`${base}/ok`, 'http://localhost:9/x', 'http://[::1]:9/x', 'http://169.254.169.254/latest']) {
      const outcome = await postHookEvent({ type: 'http', url }, payload, { policy: strict, timeoutMs: 5_000 });
      expect(outcome.type).toBe('failed');
      expect(outcome.type === 'failed' && outcome.reason).toMatch(
        /refused: .*(private, local or reserved|SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE)/,
      );
    }
    expect(received).toHaveLength(0);
    for (const url of ['file:///etc/passwd', 'http://user:pw@example.com/', 'not a url']) {
      const outcome = await postHookEvent({ type: 'http', url }, payload, { policy: strict, timeoutMs: 5_000 });
      expect(outcome).toMatchObject({ type: 'failed', reason: expect.stringContaining('refused') });
    }
  });

  it('never follows a redirect (to a private address or anywhere): a non-2xx, non-blocking error', async () => {
    const outcome = await postHookEvent(hook('/redirect-private'), payload, { policy: loopback, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ type: 'response', status: 307 });
    expect(received).toHaveLength(1);
    expect(interpretHttpAnswer('PreToolUse', 'h', outcome)).toMatchObject({
      kind: 'error',
      notice: expect.stringContaining('HTTP 307'),
    });
  });

  it('ignores an oversized answer instead of reading half of it', async () => {
    const outcome = await postHookEvent(hook('/huge'), payload, {
      policy: { ...loopback, maxBodyBytes: 1_000 },
      timeoutMs: 5_000,
    });
    expect(outcome).toEqual({ type: 'failed', reason: expect.stringContaining('more than 1000 bytes') });
  });

  it('non-2xx, no connection and timeouts are non-blocking errors', async () => {
    const failed = await postHookEvent(hook('/fail'), payload, { policy: loopback, timeoutMs: 5_000 });
    expect(interpretHttpAnswer('Stop', 'h', failed)).toMatchObject({
      kind: 'error',
      notice: expect.stringContaining('HTTP 503: down for maintenance'),
    });
    const closed = await postHookEvent({ type: 'http', url: 'http://127.0.0.1:1/x' }, payload, {
      policy: loopback,
      timeoutMs: 5_000,
    });
    expect(closed).toMatchObject({ type: 'failed', reason: expect.stringContaining('could not be reached') });
    const started = Date.now();
    const hung = await postHookEvent(hook('/hang'), payload, { policy: loopback, timeoutMs: 300 });
    expect(hung).toMatchObject({ type: 'failed', reason: expect.stringContaining('within 0.3 s') });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
