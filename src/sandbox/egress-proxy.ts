// The sandbox's filtering HTTP proxy, on a unix socket outside it (docs/security.md, "Network").
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import {
  checkTarget,
  checkedHostPort,
  parseAuthority,
  type EgressDecision,
  type EgressPolicy,
  type TargetCheck,
} from './egress-target';

/** Limits of one proxy (defaults: {@link defaultEgressLimits}). */
export interface EgressLimits {
  /** Largest request head the proxy reads, in bytes. */
  maxHeaderBytes: number;
  /** A tunnel or forwarded request with no traffic this long is closed. */
  idleTimeoutMs: number;
  /** Tunnels and forwarded requests open at once; more are answered 503. */
  maxConcurrent: number;
}

export const defaultEgressLimits: EgressLimits = {
  maxHeaderBytes: 16 * 1024,
  idleTimeoutMs: 120_000,
  maxConcurrent: 64,
};

export interface EgressProxyOptions extends EgressPolicy {
  socketPath: string;
  limits?: Partial<EgressLimits>;
  /** Called once per CONNECT or forwarded request with what was decided. */
  onDecision?(decision: EgressDecision): void;
}

/** Counts of what the proxy decided, and the hosts it refused. */
export interface EgressStats {
  allowed: number;
  refused: number;
  refusedHosts: string[];
}

export interface EgressProxy {
  socketPath: string;
  stats(): EgressStats;
  /** Stops listening and closes every client and upstream socket. */
  close(): Promise<void>;
}

// Request headers that belong to one hop (RFC 9110 §7.6.1), never forwarded.
const hopByHop = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function plainAnswer(status: number, text: string): string {
  const body = `${text}\n`;
  const reason = http.STATUS_CODES[status] ?? 'Error';
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** Starts the proxy; resolves once it listens on `socketPath`. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const limits = { ...defaultEgressLimits, ...options.limits };
  const sockets = new Set<Duplex>();
  const stats: EgressStats = { allowed: 0, refused: 0, refusedHosts: [] };
  let open = 0;
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const decided = (check: TargetCheck, kind: EgressDecision['kind']) => {
    const allowed = check.type === 'connect';
    if (allowed) stats.allowed += 1;
    else {
      stats.refused += 1;
      if (!stats.refusedHosts.includes(check.host) && stats.refusedHosts.length < 100)
        stats.refusedHosts.push(check.host);
    }
    options.onDecision?.({
      host: check.host,
      port: check.port,
      kind,
      allowed,
      detail: check.type === 'connect' ? check.address : check.text,
    });
  };
  /** Takes a slot for a connection, or undefined when all are in use. */
  const slot = (): (() => void) | undefined => {
    if (open >= limits.maxConcurrent) return undefined;
    open += 1;
    let released = false;
    return () => {
      if (!released) open -= 1;
      released = true;
    };
  };

  const server = http.createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    requestTimeout: limits.idleTimeoutMs,
    headersTimeout: Math.min(limits.idleTimeoutMs, 30_000),
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', track);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    if (socket.writable)
      socket.end(
        plainAnswer(
          status,
          status === 400
            ? 'the proxy could not read this request'
            : `the request head is over ${limits.maxHeaderBytes} bytes or too slow`,
        ),
      );
    else socket.destroy();
  });

  server.on('connect', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // A server listening on a socket path hands over a net.Socket.
    const client = socket as net.Socket;
    client.on('error', () => client.destroy());
    const target = parseAuthority(request.url ?? '');
    if ('problem' in target) return void client.end(plainAnswer(400, `CONNECT needs host:port: ${target.problem}`));
    const release = slot();
    if (!release)
      return void client.end(
        plainAnswer(503, `the sandbox's proxy has ${limits.maxConcurrent} connections open; try again later`),
      );
    client.once('close', release);
    void checkTarget(target.host, target.port, options).then((check) => {
      decided(check, 'connect');
      if (check.type === 'refuse') return void client.end(plainAnswer(check.status, check.text));
      if (client.destroyed) return;
      const upstream = net.connect({ host: check.address, port: check.port });
      track(upstream);
      const closeBoth = () => {
        upstream.destroy();
        client.destroy();
      };
      upstream.setTimeout(limits.idleTimeoutMs, closeBoth);
      client.setTimeout(limits.idleTimeoutMs, closeBoth);
      let established = false;
      upstream.once('connect', () => {
        established = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        // Inside an established tunnel the client's bytes are the target's: no answer of the proxy's may be written there.
        if (established || !client.writable) return closeBoth();
        client.end(
          plainAnswer(502, `could not connect to ${check.host}:${check.port} (${error.code ?? error.message})`),
        );
      });
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
    });
  });

  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const refuse = (status: number, text: string) => {
      if (!response.headersSent)
        response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      response.end(`${text}\n`);
      request.resume();
    };
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      return refuse(
        400,
        'the sandbox proxy forwards absolute http:// URLs only (set http_proxy), and tunnels others with CONNECT',
      );
    }
    if (url.protocol !== 'http:')
      return refuse(
        400,
        `the sandbox proxy forwards http:// URLs only; ${url.protocol} goes through CONNECT (https_proxy)`,
      );
    const target = checkedHostPort(url.hostname, Number(url.port || 80));
    if ('problem' in target) return refuse(400, `the request's URL has no usable host: ${target.problem}`);
    const release = slot();
    if (!release)
      return refuse(503, `the sandbox's proxy has ${limits.maxConcurrent} connections open; try again later`);
    response.once('close', release);
    void checkTarget(target.host, target.port, options).then((check) => {
      decided(check, 'http');
      if (check.type === 'refuse') return refuse(check.status, check.text);
      forward(request, response, url, check.address, limits.idleTimeoutMs, refuse);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    socketPath: options.socketPath,
    stats: () => ({ ...stats, refusedHosts: [...stats.refusedHosts] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      }),
  };
}

/** Sends one plain-HTTP request on to the checked address, streaming both bodies. */
function forward(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  url: URL,
  address: string,
  idleTimeoutMs: number,
  refuse: (status: number, text: string) => void,
): void {
  const dropped = new Set((request.headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase()));
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !hopByHop.has(name) && !dropped.has(name)) headers[name] = value;
  }
  // The Host header names the URL's host: the checked name is the one the server sees.
  headers.host = url.host;
  const upstream = http.request({
    host: address,
    port: Number(url.port || 80),
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    agent: false,
  });
  upstream.setTimeout(idleTimeoutMs, () => upstream.destroy(new Error('no traffic')));
  upstream.on('response', (answer) => {
    const answerHeaders: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !hopByHop.has(name)) answerHeaders[name] = value;
    response.writeHead(answer.statusCode ?? 502, answerHeaders);
    answer.pipe(response);
    answer.on('error', () => response.destroy());
  });
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (response.headersSent) return void response.destroy();
    refuse(502, `could not reach ${url.host} (${error.code ?? error.message})`);
  });
  response.once('close', () => upstream.destroy());
  request.pipe(upstream);
}
