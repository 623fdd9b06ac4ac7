import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandServerSpec, loadMcpConfig, parseServerSpec } from '../../src/project/mcp-config';

describe('.mcp.json', () => {
  it("parses stdio, http and sse servers in Claude Code's format, and says what is wrong with others", () => {
    expect(parseServerSpec({ command: 'npx', args: ['-y', 'x'], env: { A: '1' }, description: 'ignored' })).toEqual({
      spec: { type: 'stdio', command: 'npx', args: ['-y', 'x'], env: { A: '1' } },
    });
    expect(
      parseServerSpec({
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${TOKEN}' },
      }),
    ).toEqual({
      spec: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
    });
    expect(parseServerSpec({ type: 'sse', url: 'http://127.0.0.1:1/sse' })).toEqual({
      spec: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
    });
    expect(parseServerSpec({ type: 'ws', url: 'ws://x' })).toEqual({
      error: 'type "ws" is not supported (stdio, http and sse are)',
    });
    expect(parseServerSpec({ type: 'http' })).toEqual({ error: expect.stringContaining('"url"') });
    expect(parseServerSpec({ args: ['x'] })).toEqual({ error: expect.stringContaining('"command"') });
    expect(parseServerSpec('npx x')).toEqual({ error: expect.stringContaining('must be an object') });
    expect(parseServerSpec({ command: 'x', args: 'not-a-list' })).toEqual({ error: expect.stringContaining('"args"') });
  });

  it('expands ${VAR} and ${VAR:-default} at connection time, naming variables that are not set', () => {
    const env = { TOKEN: 'secret', HOME: '/home/me' };
    expect(
      expandServerSpec(
        { type: 'stdio', command: '${HOME}/bin/srv', args: ['--port', '${PORT:-8080}'], env: { KEY: '${TOKEN}' } },
        env,
      ),
    ).toEqual({
      type: 'stdio',
      command: '/home/me/bin/srv',
      args: ['--port', '8080'],
      env: { KEY: 'secret' },
    });
    expect(
      expandServerSpec({ type: 'http', url: 'https://x/${TOKEN}', headers: { A: 'Bearer ${TOKEN}' } }, env),
    ).toEqual({ type: 'http', url: 'https://x/secret', headers: { A: 'Bearer secret' } });
    expect(() => expandServerSpec({ type: 'stdio', command: 'x', args: ['${MISSING}', '${ALSO}'] }, env)).toThrow(
      /MISSING, ALSO .*not set on the worker/,
    );
  });

  it('reads .mcp.json from the directory up, the nearest winning, and reports broken files and servers', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'mcp-config-'));
    const inner = path.join(root, 'a', 'b');
    mkdirSync(inner, { recursive: true });
    writeFileSync(
      path.join(root, '.mcp.json'),
      JSON.stringify({ mcpServers: { shared: { command: 'outer' }, only: { command: 'only' } } }),
    );
    writeFileSync(path.join(root, 'a', '.mcp.json'), '{ not json');
    writeFileSync(
      path.join(inner, '.mcp.json'),
      JSON.stringify({ mcpServers: { shared: { command: 'inner' }, bad: { type: 'ws', url: 'ws://x' } } }),
    );
    const config = await loadMcpConfig(inner);
    expect(config.servers).toEqual({
      shared: { type: 'stdio', command: 'inner' },
      only: { type: 'stdio', command: 'only' },
    });
    expect(config.sources.only).toBe(path.join(root, '.mcp.json'));
    expect(config.problems).toEqual([
      {
        file: path.join(inner, '.mcp.json'),
        message: 'server "bad": type "ws" is not supported (stdio, http and sse are); it is ignored',
      },
      { file: path.join(root, 'a', '.mcp.json'), message: expect.stringMatching(/^not valid JSON/) },
    ]);
    writeFileSync(path.join(inner, '.mcp.json'), JSON.stringify({ servers: {} }));
    expect((await loadMcpConfig(inner)).problems[0]?.message).toMatch(/needs an "mcpServers" object/);
  });
});
