import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy, type EgressProxyOptions } from '../../../src/sandbox/egress-proxy';
import type { EgressDecision } from '../../../src/sandbox/egress-target';

const run = promisify(execFile);

/** A loopback target that counts the connections it sees and answers every request with its path. */
async function startTarget(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () =>
      response.end(
        `target saw ${request.method} ${request.url} host=${request.headers.host} body=${body} proxy-auth=${request.headers['proxy-authorization'] ?? '-'}`,
      ),
    );
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Sends raw bytes to the proxy and reads until it closes (or the first answer ends with a tunnel). */
function raw(socketPath: string, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(bytes);
  });
}

/** A CONNECT through the proxy, then one HTTP/1.0 GET inside the tunnel; the whole exchange as text. */
function tunnelGet(socketPath: string, authority: string, path = '/'): Promise<string> {
  return raw(
    socketPath,
    `CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\nGET ${path} HTTP/1.0\r\nhost: ${authority}\r\n\r\n`,
  );
}

function proxiedGet(
  socketPath: string,
  url: string,
  extra: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { socketPath, method: body ? 'POST' : 'GET', path: url, headers: { host: new URL(url).host, ...extra } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('the sandbox egress proxy', () => {
  let dir: string;
  let target: Awaited<ReturnType<typeof startTarget>>;
  let proxy: EgressProxy | undefined;
  let decisions: EgressDecision[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'egress-proxy-'));
    target = await startTarget();
    decisions = [];
  });

  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (options: Partial<EgressProxyOptions>) => {
    proxy = await startEgressProxy({
      socketPath: join(dir, 'proxy.sock'),
      allowedDomains: [],
      onDecision: (decision) => decisions.push(decision),
      ...options,
    });
    return proxy.socketPath;
  };

  it('tunnels CONNECT and forwards plain http to a host listed exactly, streaming the body both ways', async () => {
    const socketPath = await start({ allowedDomains: ['127.0.0.1'] });
    const tunnel = await tunnelGet(socketPath, `127.0.0.1:${target.port}`, '/inside');
    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.[01] 200 OK/);
    expect(tunnel).toContain('target saw GET /inside');
    const plain = await proxiedGet(
      socketPath,
      `http://127.0.0.1:${target.port}/plain?q=1`,
      { 'proxy-authorization': 'Basic c2VjcmV0' },
      'payload',
    );
    expect(plain.status).toBe(200);
    // The proxy's own credentials stay with the proxy; the body arrives whole.
    expect(plain.body).toBe(`target saw POST /plain?q=1 host=127.0.0.1:${target.port} body=payload proxy-auth=-`);
    expect(decisions.map(({ kind, allowed, host }) => ({ kind, allowed, host }))).toEqual([
      { kind: 'connect', allowed: true, host: '127.0.0.1' },
      { kind: 'http', allowed: true, host: '127.0.0.1' },
    ]);
    expect(proxy!.stats()).toEqual({ allowed: 2, refused: 0, refusedHosts: [] });
  });

  it('refuses an unlisted host with a 403 that says how to allow it, and never connects to it', async () => {
    const socketPath = await start({ allowedDomains: ['*.com', '*.localhost', 'example.org'] });
    const tunnel = await tunnelGet(socketPath, `127.0.0.1:${target.port}`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(tunnel).toContain('EgressRefused: 127.0.0.1: the sandbox does not connect to hosts it was not told about');
    expect(tunnel).toContain('sandbox.network.allowedDomains');
    expect(tunnel).toContain('WebFetch(domain:127.0.0.1)');
    expect(tunnel).not.toContain('target saw');
    const plain = await proxiedGet(socketPath, `http://localhost:${target.port}/`);
    expect(plain.status).toBe(403);
    expect(plain.body).toContain('EgressRefused: localhost:');
    expect(target.connections()).toBe(0);
    expect(proxy!.stats()).toEqual({ allowed: 0, refused: 2, refusedHosts: ['127.0.0.1', 'localhost'] });
  });

  it('refuses a wildcard-matched name that resolves to a private address, and allows it when listed exactly', async () => {
    // The resolver is injected: `api.internal.test` resolves to the target's loopback address.
    const resolve = async () => ['127.0.0.1'];
    let socketPath = await start({ allowedDomains: ['*.internal.test'], resolve });
    const refused = await tunnelGet(socketPath, `api.internal.test:${target.port}`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).toContain('resolves to 127.0.0.1, a private, loopback or link-local address');
    expect((await proxiedGet(socketPath, `http://api.internal.test:${target.port}/`)).status).toBe(403);
    // Metadata addresses (link-local) are private too.
    await proxy!.close();
    socketPath = await start({ allowedDomains: ['*.internal.test'], resolve: async () => ['169.254.169.254'] });
    expect(await tunnelGet(socketPath, 'metadata.internal.test:80')).toContain('resolves to 169.254.169.254');
    // One private address among public ones is enough to refuse: the connection could go to any of them.
    await proxy!.close();
    socketPath = await start({ allowedDomains: ['*.internal.test'], resolve: async () => ['93.184.216.34', '::1'] });
    expect(await tunnelGet(socketPath, 'mixed.internal.test:443')).toContain('resolves to ::1');
    expect(target.connections()).toBe(0);
    await proxy!.close();
    socketPath = await start({ allowedDomains: ['api.internal.test'], resolve });
    const allowed = await proxiedGet(socketPath, `http://api.internal.test:${target.port}/x`);
    expect(allowed).toEqual({
      status: 200,
      body: `target saw GET /x host=api.internal.test:${target.port} body= proxy-auth=-`,
    });
  });

  it('lets a denied entry beat an allowed one', async () => {
    const socketPath = await start({ allowedDomains: ['127.0.0.1'], deniedDomains: ['127.0.0.1'] });
    const answer = await tunnelGet(socketPath, `127.0.0.1:${target.port}`);
    expect(answer).toContain('it matches 127.0.0.1 in sandbox.network.deniedDomains');
    expect(target.connections()).toBe(0);
  });

  it('answers malformed requests with a 4xx and keeps serving', async () => {
    const socketPath = await start({ allowedDomains: ['127.0.0.1'], limits: { maxHeaderBytes: 2048 } });
    for (const authority of [
      '127.0.0.1:0',
      '127.0.0.1:99999',
      'garbage',
      ':443',
      'a b:80',
      '127.0.0.1:',
      'user@127.0.0.1:80',
    ]) {
      const answer = await raw(socketPath, `CONNECT ${authority} HTTP/1.1\r\n\r\n`);
      expect(answer, authority).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(await raw(socketPath, 'GET /relative HTTP/1.1\r\nhost: x\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 [^]*absolute http:\/\/ URLs only/,
    );
    expect(await raw(socketPath, 'GET https://127.0.0.1/ HTTP/1.1\r\nhost: x\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 [^]*goes through CONNECT/,
    );
    expect(await raw(socketPath, 'GET http:/// HTTP/1.1\r\nhost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw(socketPath, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(
      await raw(
        socketPath,
        `GET http://127.0.0.1:${target.port}/ HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(4096)}\r\n\r\n`,
      ),
    ).toMatch(/^HTTP\/1\.1 431 /);
    expect(target.connections()).toBe(0);
    expect(await tunnelGet(socketPath, `127.0.0.1:${target.port}`)).toContain('target saw GET /');
  });

  it('answers 502 when an allowed target refuses the connection', async () => {
    const socketPath = await start({ allowedDomains: ['127.0.0.1'] });
    const closed = await startTarget();
    await closed.close();
    expect(await tunnelGet(socketPath, `127.0.0.1:${closed.port}`)).toMatch(
      /^HTTP\/1\.1 502 Bad Gateway\r\n[^]*could not connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
    expect((await proxiedGet(socketPath, `http://127.0.0.1:${closed.port}/`)).status).toBe(502);
  });

  it('closes a tunnel that carries nothing for its idle time', async () => {
    const socketPath = await start({ allowedDomains: ['127.0.0.1'], limits: { idleTimeoutMs: 300 } });
    // The tunnel opens, nothing more is sent: the proxy ends it (raw() resolves only when the socket closes).
    expect(await raw(socketPath, `CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\n\r\n`)).toBe(
      'HTTP/1.1 200 Connection Established\r\n\r\n',
    );
    expect(target.connections()).toBe(1);
  });

  it('answers 503 beyond its concurrent connections, and closes open tunnels on close()', async () => {
    const socketPath = await start({ allowedDomains: ['127.0.0.1'], limits: { maxConcurrent: 1 } });
    const held = net.connect(socketPath);
    const established = new Promise<void>((resolve) => held.once('data', () => resolve()));
    const closed = new Promise<void>((resolve) => held.once('close', () => resolve()));
    held.write(`CONNECT 127.0.0.1:${target.port} HTTP/1.1\r\n\r\n`);
    await established;
    expect(await tunnelGet(socketPath, `127.0.0.1:${target.port}`)).toMatch(/^HTTP\/1\.1 503 /);
    await proxy!.close();
    proxy = undefined;
    await closed;
  });

  it('confines a command in bubblewrap to the proxy (socat relays a loopback port to its socket)', async (context) => {
    const missing = ['bwrap', 'socat', 'curl'].filter(
      (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
    );
    const probe =
      missing.length === 0 ? spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-net', 'true']) : undefined;
    if (missing.length > 0 || probe?.status !== 0) {
      const reason =
        missing.length > 0
          ? `${missing.join(', ')} not installed`
          : `bwrap cannot run here: ${probe?.stderr.toString().trim()}`;
      console.warn(`skipped the bubblewrap egress test: ${reason}`);
      context.skip();
    }
    const socketPath = await start({ allowedDomains: ['127.0.0.1'] });
    const script = [
      `socat TCP-LISTEN:3128,fork,reuseaddr,bind=127.0.0.1 UNIX-CONNECT:${socketPath} & relay=$!`,
      'for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:3128/ 2>/dev/null; [ $? -ne 7 ] && break; sleep 0.1; done',
      `echo "direct: $(curl -s -m 2 http://127.0.0.1:${target.port}/direct || echo unreachable)"`,
      `echo "proxied: $(curl -s -x http://127.0.0.1:3128 http://127.0.0.1:${target.port}/proxied)"`,
      `echo "tunnel: $(curl -s -p -x http://127.0.0.1:3128 http://127.0.0.1:${target.port}/tunnel)"`,
      'echo "refused: $(curl -s -x http://127.0.0.1:3128 http://example.com/)"',
      'kill $relay',
    ].join('\n');
    // Asynchronous: the proxy runs in this process and must keep serving while the sandbox runs.
    const { stdout } = await run(
      'bwrap',
      [
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--unshare-net',
        '--unshare-pid',
        '--die-with-parent',
        '--bind',
        dir,
        dir,
        'sh',
        '-c',
        script,
      ],
      {
        timeout: 60_000,
      },
    );
    expect(stdout).toContain('direct: unreachable');
    expect(stdout).toContain(`proxied: target saw GET /proxied host=127.0.0.1:${target.port}`);
    expect(stdout).toContain(`tunnel: target saw GET /tunnel host=127.0.0.1:${target.port}`);
    expect(stdout).toContain(
      'refused: EgressRefused: example.com: the sandbox does not connect to hosts it was not told about',
    );
    expect(target.connections()).toBe(2);
  });
});
