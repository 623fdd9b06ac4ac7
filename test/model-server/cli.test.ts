import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { modelServerCommand, parseModelServerArgs } from '../../src/cli/commands/model-server';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'model-server-cli-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('parseModelServerArgs', () => {
  it('defaults to the demo on 127.0.0.1 and the configured port', () => {
    expect(parseModelServerArgs([], {})).toEqual({
      port: 8788,
      host: '127.0.0.1',
      behaviour: { kind: 'demo' },
      strictRoles: false,
    });
    expect(parseModelServerArgs([], { SUBAGENTS_MODEL_SERVER_PORT: '9100' }).port).toBe(9100);
    expect(
      parseModelServerArgs(
        ['--port', '0', '--host', '0.0.0.0', '--script', 's.json', '--strict-roles', '--api-key', 'k'],
        {},
      ),
    ).toEqual({
      port: 0,
      host: '0.0.0.0',
      behaviour: { kind: 'script', file: 's.json' },
      strictRoles: true,
      apiKey: 'k',
    });
    expect(parseModelServerArgs(['--echo'], {}).behaviour).toEqual({ kind: 'echo' });
  });

  it('rejects bad ports, several behaviours and unknown options', () => {
    expect(() => parseModelServerArgs(['--port', 'abc'], {})).toThrow(/--port must be an integer/);
    expect(() => parseModelServerArgs(['--port', '70000'], {})).toThrow(/--port/);
    expect(() => parseModelServerArgs(['--demo', '--echo'], {})).toThrow(/at most one of/);
    expect(() => parseModelServerArgs(['--verbose'], {})).toThrow(/verbose/);
  });
});

describe('modelServerCommand', () => {
  it('exits 2 with a clear message for bad arguments or a bad scenario file', async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((message: unknown) => {
      errors.push(String(message));
    });
    try {
      expect(await modelServerCommand(['--nope'])).toBe(2);
      expect(await modelServerCommand(['--script', path.join(directory, 'missing.json')])).toBe(2);
      const broken = path.join(directory, 'broken.json');
      await writeFile(broken, '{ "agents": [ { "match": {}, "turns": [ { "txt": "typo" } ] } ] }');
      expect(await modelServerCommand(['--script', broken, '--port', '0'])).toBe(2);
      const notJson = path.join(directory, 'not-json.json');
      await writeFile(notJson, 'agents: []');
      expect(await modelServerCommand(['--script', notJson, '--port', '0'])).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(errors[0]).toMatch(/--nope/);
    expect(errors[1]).toMatch(/cannot read scenario file .*missing\.json/);
    expect(errors[2]).toMatch(/broken\.json.*\n.*agents\.0\.turns\.0/);
    expect(errors[3]).toMatch(/not-json\.json is not valid JSON/);
  });

  it('exits 3 with one line naming the port and how to change it when the port is taken', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
    try {
      expect(await modelServerCommand(['--port', String(port), '--echo'])).toBe(3);
    } finally {
      spy.mockRestore();
      holder.close();
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBe(
      `subagents model-server: 127.0.0.1:${port} is already in use (another model server?). Pick another port with --port N or SUBAGENTS_MODEL_SERVER_PORT (--port 0 takes a free one), or stop what holds it (\`ss -ltnp 'sport = :${port}'\` shows who).`,
    );
  });

  it('serves a scenario file until SIGTERM, then exits 0', async () => {
    const scenario = path.join(directory, 'scenario.json');
    await writeFile(scenario, JSON.stringify({ agents: [], default: [{ text: 'from the file' }] }));
    const runner = fileURLToPath(new URL('./run-model-server-command.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', runner, '--port', '0', '--script', scenario], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(() => expect(output).toMatch(/export ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+/), {
        timeout: 20_000,
        interval: 100,
      });
      const url = /export ANTHROPIC_BASE_URL=(\S+)/.exec(output)![1]!;
      const response = await fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'claude-sonnet-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(((await response.json()) as { content: unknown }).content).toEqual([
        { type: 'text', text: 'from the file' },
      ]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).toContain('closing');
  }, 30_000);
});
