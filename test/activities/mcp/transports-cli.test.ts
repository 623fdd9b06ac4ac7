import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpConnectionPool } from '../../../src/mcp/connection-pool';
import { mcpCommand } from '../../../src/cli/commands/mcp';

const everythingServer = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** server-everything over HTTP (`streamableHttp` or `sse`) on a free port, started for real. */
async function startHttpServer(transport: 'streamableHttp' | 'sse'): Promise<{ process: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingServer, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running/i.test(output)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)));
  });
  return { process: child, port };
}

const servers: ChildProcess[] = [];
let http: { port: number };
let sse: { port: number };
beforeAll(async () => {
  const started = await Promise.all([startHttpServer('streamableHttp'), startHttpServer('sse')]);
  servers.push(...started.map((server) => server.process));
  [http, sse] = started;
});
afterAll(() => {
  for (const server of servers) server.kill();
});

describe('MCP transports', () => {
  it('connects over streamable HTTP and SSE, lists and calls tools, and closes everything on shutdown', async () => {
    const pool = new McpConnectionPool();
    for (const spec of [
      {
        type: 'http' as const,
        url: `http://127.0.0.1:${http.port}/mcp`,
        headers: { 'x-test': '${MCP_TEST_HEADER:-yes}' },
      },
      { type: 'sse' as const, url: `http://127.0.0.1:${sse.port}/sse` },
    ]) {
      const connection = await pool.acquire('everything', spec, os.tmpdir());
      expect((await connection.client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
      expect(await connection.client.callTool({ name: 'echo', arguments: { message: spec.type } })).toMatchObject({
        content: [{ type: 'text', text: `Echo: ${spec.type}` }],
      });
      // The same spec and directory share one connection.
      expect(await pool.acquire('everything', spec, os.tmpdir())).toBe(connection);
    }
    expect(await pool.live()).toHaveLength(2);
    await pool.closeAll();
    expect(await pool.live()).toHaveLength(0);
    await expect(pool.acquire('everything', { type: 'stdio', command: 'node' }, os.tmpdir())).rejects.toThrow(
      /shutting down/,
    );
  });

  it('opens a new stdio process when the previous one died', async () => {
    const pool = new McpConnectionPool();
    const spec = { type: 'stdio' as const, command: process.execPath, args: [everythingServer, 'stdio'] };
    const first = await pool.acquire('everything', spec, os.tmpdir());
    process.kill(first.pid!, 'SIGKILL');
    await vi.waitFor(() => expect(first.alive).toBe(false), { timeout: 10_000 });
    const second = await pool.acquire('everything', spec, os.tmpdir());
    expect(second.pid).not.toBe(first.pid);
    expect(second.alive).toBe(true);
    await pool.closeAll();
  });

  it('reports why a server cannot start, with the end of its stderr', async () => {
    const pool = new McpConnectionPool({ connectTimeoutMs: 5000 });
    await expect(pool.acquire('gone', { type: 'stdio', command: '/nonexistent/server' }, os.tmpdir())).rejects.toThrow(
      /ENOENT/,
    );
    await expect(
      pool.acquire(
        'crashes',
        {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', 'console.error("boom: bad config"); process.exit(3)'],
        },
        os.tmpdir(),
      ),
    ).rejects.toThrow(/boom: bad config/);
    await expect(
      pool.acquire('unset', { type: 'stdio', command: '${NO_SUCH_VARIABLE_FOR_MCP}' }, os.tmpdir()),
    ).rejects.toThrow(/NO_SUCH_VARIABLE_FOR_MCP .*not set on the worker/);
    await pool.closeAll();
  });
});

describe('subagents mcp list|tools', () => {
  let output: string[];
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'mcp-cli-')));
    writeFileSync(
      path.join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everythingServer, 'stdio'] },
          remote: { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` },
          broken: { command: '/nonexistent/server' },
          socket: { type: 'ws', url: 'ws://127.0.0.1:1' },
        },
      }),
    );
    // The user trusts this project's servers (docs/security.md).
    mkdirSync(path.join(dir, '.claude'));
    writeFileSync(
      path.join(dir, '.claude', 'settings.local.json'),
      JSON.stringify({ enableAllProjectMcpServers: true }),
    );
  });
  const run = async (argv: string[]) => {
    output = [];
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
    try {
      return await mcpCommand(argv, { homeDir: dir });
    } finally {
      vi.restoreAllMocks();
    }
  };
  afterEach(() => vi.restoreAllMocks());

  it('lists the configured servers and whether each answers', async () => {
    expect(await run(['list', '--dir', dir, '--json'])).toBe(0);
    const listed = JSON.parse(output.join('\n')) as {
      servers: { name: string; reachable: boolean; tools?: number; error?: string }[];
      problems: string[];
    };
    expect(listed.servers.map((server) => [server.name, server.reachable])).toEqual([
      ['everything', true],
      ['remote', true],
      ['broken', false],
    ]);
    expect(listed.servers[0]!.tools).toBeGreaterThan(5);
    expect(listed.servers[2]!.error).toMatch(/ENOENT/);
    expect(listed.problems).toEqual([expect.stringContaining('server "socket": type "ws" is not supported')]);
    expect(await run(['list', '--dir', dir])).toBe(0);
    expect(output.join('\n')).toMatch(
      /everything {2}\[stdio\][\s\S]*reachable, \d+ tool\(s\)[\s\S]*broken {2}\[stdio\] \/nonexistent\/server[\s\S]*UNREACHABLE/,
    );
  });

  it("lists a server's tools with their names and classification; unknown or unreachable servers exit 4 and 3", async () => {
    expect(await run(['tools', 'remote', '--dir', dir])).toBe(0);
    expect(output.join('\n')).toMatch(/^mcp__remote__echo {2}\(read-only\)\n {2}Echoes back the input string/m);
    await expect(run(['tools', 'nope', '--dir', dir])).rejects.toMatchObject({
      exitCode: 4,
      message: expect.stringContaining('No MCP server "nope" (known: everything, remote, broken)'),
    });
    await expect(run(['tools', 'broken', '--dir', dir])).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringContaining('is not reachable'),
    });
    await expect(run(['tools', '--dir', dir])).rejects.toMatchObject({ exitCode: 2 });
    await expect(run(['frobnicate'])).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('unknown subcommand "frobnicate"'),
    });
    await expect(run(['list', '--dir', path.join(dir, 'missing')])).rejects.toMatchObject({ exitCode: 2 });
    await expect(run(['list', '--bogus'])).rejects.toMatchObject({ exitCode: 2 });
  });
});
