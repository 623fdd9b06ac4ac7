// The worker's MCP connections, one per server spec and directory, shared and reopened when dead (docs/tools.md, MCP).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import path from 'node:path';
import type { McpServerSpec } from '../shared/tools/mcp';
import { expandServerSpec } from '../project/mcp-config';
import { readBufferLimitOf } from './read-limit';
import { launchSandboxed } from '../sandbox/sandboxed-launch';
import type { SandboxOptions } from '../config/sandbox-options';
import fs from 'node:fs/promises';

/** One live connection. */
export interface McpConnection {
  readonly name: string;
  readonly client: Client;
  /** Process id of a stdio server. */
  readonly pid?: number;
  /** False once the transport closed (the server exited or the connection dropped). */
  readonly alive: boolean;
  /** The SDK's read limit in bytes once an answer larger than it closed the connection (read-limit.ts). */
  readonly readLimitExceeded: number | undefined;
  /** The last lines the stdio server wrote to stderr (for error messages). */
  stderrTail(): string;
}

export interface McpPoolOptions {
  /** Environment `${VAR}` references are expanded from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Time to connect and initialize (default 30 s). */
  connectTimeoutMs?: number;
  /** Client name sent to servers. */
  clientName?: string;
  /** The OS sandbox stdio servers run in (default: on, docs/security.md). */
  sandbox?: SandboxOptions;
}

const stderrTailChars = 2000;

class LiveConnection implements McpConnection {
  alive = true;
  readLimitExceeded: number | undefined;
  private stderr = '';

  constructor(
    readonly name: string,
    readonly client: Client,
    private readonly stdio: StdioClientTransport | undefined,
  ) {}

  get pid(): number | undefined {
    return this.stdio?.pid ?? undefined;
  }

  noteStderr(chunk: string): void {
    this.stderr = (this.stderr + chunk).slice(-stderrTailChars);
  }

  stderrTail(): string {
    return this.stderr.trim();
  }
}

/** Node's own error for a server command that is not there, instead of bubblewrap's less clear one from inside the sandbox. */
async function assertRunnable(program: string, cwd: string): Promise<void> {
  const candidates = program.includes('/')
    ? [path.resolve(cwd, program)]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((directory) => path.join(directory, program));
  for (const candidate of candidates) {
    if (
      await fs.access(candidate, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  throw Object.assign(new Error(`spawn ${program} ENOENT`), { code: 'ENOENT', path: program });
}

/** The transport for a server; the SDK loads here, not at worker start (docs/operations.md, "Worker start-up"). */
async function createTransport(
  spec: McpServerSpec,
  cwd: string,
  sandbox: SandboxOptions | undefined,
): Promise<{ transport: Transport; stdio?: StdioClientTransport }> {
  switch (spec.type) {
    case 'stdio': {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const serverCwd = spec.cwd ? path.resolve(cwd, spec.cwd) : cwd;
      // A server sees the system read-only, its directory writable, no secrets, and ends with its connection.
      await assertRunnable(spec.command, serverCwd);
      const launch = await launchSandboxed(
        [spec.command, ...(spec.args ?? [])],
        {
          profile: 'service',
          workspaceRoot: serverCwd,
          cwd: serverCwd,
          what: `the MCP server command \`${spec.command}\``,
        },
        sandbox,
      );
      const stdio = new StdioClientTransport({
        command: launch.file,
        args: launch.args,
        // The SDK adds a safe default environment (PATH, HOME, ...), not the worker's secrets.
        env: { ...launch.env, ...spec.env },
        cwd: serverCwd,
        stderr: 'pipe',
      });
      return { transport: stdio, stdio };
    }
    case 'http': {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return {
        transport: new StreamableHTTPClientTransport(new URL(spec.url), {
          requestInit: { headers: spec.headers ?? {} },
        }),
      };
    }
    case 'sse': {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return { transport: new SSEClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers ?? {} } }) };
    }
  }
}

/** Connections by spec and directory. */
export class McpConnectionPool {
  private readonly connections = new Map<string, Promise<LiveConnection>>();
  private closed = false;

  constructor(private readonly options: McpPoolOptions = {}) {}

  /** A live connection to the server, opened (again) when there is none. */
  async acquire(name: string, spec: McpServerSpec, cwd: string): Promise<McpConnection> {
    if (this.closed) throw new Error('the worker is shutting down');
    const key = JSON.stringify([spec, cwd]);
    const existing = this.connections.get(key);
    if (existing) {
      const connection = await existing.catch(() => undefined);
      if (connection?.alive) return connection;
      if (this.connections.get(key) === existing) this.connections.delete(key);
    }
    const opening = this.open(name, spec, cwd, key);
    this.connections.set(key, opening);
    opening.catch(() => {
      if (this.connections.get(key) === opening) this.connections.delete(key);
    });
    return opening;
  }

  private async open(name: string, spec: McpServerSpec, cwd: string, key: string): Promise<LiveConnection> {
    const { transport, stdio } = await createTransport(
      expandServerSpec(spec, this.options.env ?? process.env),
      cwd,
      this.options.sandbox,
    );
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: this.options.clientName ?? 'durable-subagents', version: '0.1.0' });
    const connection = new LiveConnection(name, client, stdio);
    stdio?.stderr?.on('data', (chunk: Buffer) => connection.noteStderr(chunk.toString()));
    // The SDK reports an oversized answer here, then closes the transport: remember why it closed.
    client.onerror = (error) => {
      connection.readLimitExceeded ??= readBufferLimitOf(error);
    };
    client.onclose = () => {
      connection.alive = false;
      const current = this.connections.get(key);
      void current?.then(
        (value) => {
          if (value === connection && this.connections.get(key) === current) this.connections.delete(key);
        },
        () => {},
      );
    };
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs ?? 30_000 });
    } catch (error) {
      connection.alive = false;
      await client.close().catch(() => {});
      const detail = connection.stderrTail();
      throw new Error(
        `${(error as Error).message}${detail ? ` (server stderr: ${detail.split('\n').slice(-3).join(' | ')})` : ''}`,
      );
    }
    return connection;
  }

  /** Closes every connection (stdio servers are stopped); used when the worker shuts down. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(
      all.map(async (opening) => (await opening.catch(() => undefined))?.client.close().catch(() => {})),
    );
  }

  /** Live connections (for tests and `subagents mcp`). */
  async live(): Promise<McpConnection[]> {
    const all = await Promise.all([...this.connections.values()].map((opening) => opening.catch(() => undefined)));
    return all.filter((connection): connection is LiveConnection => connection?.alive === true);
  }
}
