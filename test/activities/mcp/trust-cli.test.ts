import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSpawnContextLoader } from '../../../src/activities/spawn-context';
import { mcpSpecDigest, mcpTrustStorePath } from '../../../src/project/mcp-trust';
import { mcpCommand } from '../../../src/cli/commands/mcp';
import { rootAgentInput } from '../../../src/client/root-input';

const slowServer = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'mcp', 'slow-server.mjs');

let base: string;
let home: string;
let project: string;
let marker: string;
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-trust-')));
  home = path.join(base, 'home');
  project = path.join(base, 'project');
  marker = path.join(project, 'server-started');
  await fs.mkdir(home);
  await fs.mkdir(project);
  await writeMcpJson('first');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(base, { recursive: true, force: true });
});

/** A checkout's `.mcp.json` whose server leaves a marker file when its command runs. */
async function writeMcpJson(tag: string): Promise<void> {
  const command = {
    command: 'sh',
    args: ['-c', `echo ${tag} >> server-started; exec "$0" "$1"`, process.execPath, slowServer],
  };
  await fs.writeFile(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { repo: command } }));
}

/** Runs the CLI, returning what it printed. */
async function cli(...argv: string[]): Promise<string> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    expect(await mcpCommand(argv, { homeDir: home })).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return lines.join('\n');
}

const markerLines = async () => (await fs.readFile(marker, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('project .mcp.json servers need trust', () => {
  it('an untrusted server never starts; after mcp trust it does; a changed spec is untrusted again', async () => {
    const listed = await cli('list', '--dir', project);
    expect(listed).toContain(`repo  [stdio] sh -c`);
    expect(listed).toContain(
      `NOT TRUSTED: not started. Review it, then trust it: subagents mcp trust --dir ${project} repo`,
    );
    const spawnLog: string[] = [];
    const loadSpawnContext = createSpawnContextLoader(home, (line) => spawnLog.push(line));
    expect((await loadSpawnContext({ cwd: project })).mcpServers).toEqual({});
    await loadSpawnContext({ cwd: project });
    expect(spawnLog).toHaveLength(1);
    expect(spawnLog[0]).toMatch(
      /MCP server "repo" of .*\.mcp\.json is not trusted for this project .* run: subagents mcp trust --dir .* repo$/,
    );
    expect(await markerLines()).toEqual([]);

    expect(await cli('trust', '--dir', project, 'repo')).toMatch(
      /^Trusted: "repo" \[stdio\] sh -c .* of .*\.mcp\.json \(until this configuration changes\)$/,
    );
    const store = JSON.parse(await fs.readFile(mcpTrustStorePath(home), 'utf8')) as {
      projects: Record<string, Record<string, string>>;
    };
    expect(Object.keys(store.projects)).toEqual([project]);
    expect(Object.keys((await loadSpawnContext({ cwd: project })).mcpServers ?? {})).toEqual(['repo']);
    expect(await cli('list', '--dir', project)).toMatch(/reachable, 1 tool\(s\)/);
    expect(await markerLines()).toEqual(['first']);

    await writeMcpJson('second');
    expect(await cli('list', '--dir', project)).toContain('NOT TRUSTED');
    expect((await loadSpawnContext({ cwd: project })).mcpServers).toEqual({});
    expect(await markerLines()).toEqual(['first']);

    await cli('trust', '--dir', project, '--all');
    expect(await cli('list', '--dir', project)).toMatch(/reachable/);
    expect(await markerLines()).toEqual(['first', 'second']);
    await cli('untrust', '--dir', project, 'repo');
    expect(await cli('list', '--dir', project)).toContain('NOT TRUSTED');
    expect(await markerLines()).toEqual(['first', 'second']);
  });

  it('honours enableAllProjectMcpServers and enabledMcpjsonServers only from the user and local settings, and disabledMcpjsonServers from any', async () => {
    const loadSpawnContext = createSpawnContextLoader(home, () => undefined);
    await fs.mkdir(path.join(project, '.claude'));
    // A checkout cannot approve its own servers.
    await fs.writeFile(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ['repo'] }),
    );
    expect((await loadSpawnContext({ cwd: project })).mcpServers).toEqual({});
    await fs.writeFile(
      path.join(project, '.claude', 'settings.local.json'),
      JSON.stringify({ enabledMcpjsonServers: ['repo'] }),
    );
    expect(Object.keys((await loadSpawnContext({ cwd: project })).mcpServers ?? {})).toEqual(['repo']);
    await fs.rm(path.join(project, '.claude', 'settings.local.json'));
    await fs.mkdir(path.join(home, '.claude'), { recursive: true });
    await fs.writeFile(
      path.join(home, '.claude', 'settings.json'),
      JSON.stringify({ enableAllProjectMcpServers: true }),
    );
    expect(Object.keys((await loadSpawnContext({ cwd: project })).mcpServers ?? {})).toEqual(['repo']);
    await fs.writeFile(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify({ disabledMcpjsonServers: ['repo'] }),
    );
    expect((await loadSpawnContext({ cwd: project })).mcpServers).toEqual({});
    expect(await cli('list', '--dir', project)).toContain('DISABLED by disabledMcpjsonServers');
    expect(await markerLines()).toEqual([]);
  });

  it('an agent that requires an untrusted server fails at its start saying how to trust it', async () => {
    await fs.mkdir(path.join(project, '.claude', 'agents'), { recursive: true });
    await fs.writeFile(
      path.join(project, '.claude', 'agents', 'needs-repo.md'),
      '---\nname: needs-repo\ndescription: uses repo\nrequiredMcpServers: [repo]\n---\nUse the repo server.\n',
    );
    const start = () => rootAgentInput({ type: 'needs-repo', prompt: 'go', cwd: project, homeDir: home });
    await expect(start()).rejects.toThrow(
      `Agent type "needs-repo" requires MCP server(s) that may not start here: MCP server "repo" of ${path.join(project, '.mcp.json')} is not trusted for this project`,
    );
    await expect(start()).rejects.toThrow(`run: subagents mcp trust --dir ${project} repo.`);
    await cli('trust', '--dir', project, 'repo');
    expect((await start()).mcp?.servers.repo).toMatchObject({ type: 'stdio', command: 'sh' });
    expect(mcpSpecDigest({ type: 'stdio', command: 'a', args: ['b'] })).toBe(
      mcpSpecDigest({ args: ['b'], command: 'a', type: 'stdio' }),
    );
    expect(await markerLines()).toEqual([]);
  });
});
