import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAgentDefinitions } from '../../project/agent-definitions/load';
import { listServerTools } from '../../mcp/tool-listing';
import { loadMcpConfig } from '../../project/mcp-config';
import { McpConnectionPool } from '../../mcp/connection-pool';
import { applyMcpTrust, mcpSpecDigest, updateMcpTrustStore, type UntrustedMcpServer } from '../../project/mcp-trust';
import { describeMcpTools } from '../../mcp/descriptors';
import type { McpServerSpec } from '../../shared/tools/mcp';
import { CliError, ExitCode } from '../exit-codes';

const usage =
  'usage: subagents mcp list [--dir DIR] [--json] | subagents mcp tools <server> [--dir DIR] [--json] |\n' +
  '       subagents mcp trust [--dir DIR] (NAME... | --all) | subagents mcp untrust [--dir DIR] (NAME... | --all)';

/** Time to connect to one server and list its tools. */
const probeTimeoutMs = 15_000;

interface KnownServer {
  name: string;
  spec: McpServerSpec;
  /** `.mcp.json` path, or `agent <name>` for an inline server of a definition. */
  source: string;
}

/** Trusted servers of `.mcp.json` (from DIR up), inline servers of the agent definitions DIR sees, and the untrusted ones (never started). */
async function knownServers(
  dir: string,
  homeDir: string,
): Promise<{
  servers: KnownServer[];
  untrusted: (UntrustedMcpServer & { spec: McpServerSpec })[];
  problems: string[];
}> {
  const [all, loaded] = await Promise.all([loadMcpConfig(dir), loadAgentDefinitions({ cwd: dir, homeDir })]);
  const config = await applyMcpTrust(all, homeDir);
  const untrusted = config.untrusted.map((server) => ({ ...server, spec: all.servers[server.name]! }));
  const servers: KnownServer[] = Object.entries(config.servers).map(([name, spec]) => ({
    name,
    spec,
    source: config.sources[name] ?? '.mcp.json',
  }));
  for (const definition of Object.values(loaded.definitions)) {
    for (const entry of definition.mcpServers ?? []) {
      if (entry.spec) servers.push({ name: entry.name, spec: entry.spec, source: `agent ${definition.name}` });
    }
  }
  return { servers, untrusted, problems: config.problems.map((problem) => `${problem.file}: ${problem.message}`) };
}

function describeSpec(spec: McpServerSpec): string {
  return spec.type === 'stdio' ? [spec.command, ...(spec.args ?? [])].join(' ') : spec.url;
}

async function probe(pool: McpConnectionPool, server: KnownServer, dir: string) {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`no answer within ${probeTimeoutMs / 1000} s`)), probeTimeoutMs).unref(),
  );
  try {
    const connection = await Promise.race([pool.acquire(server.name, server.spec, dir), timeout]);
    const tools = await listServerTools(connection, probeTimeoutMs);
    return { ok: true as const, tools };
  } catch (error) {
    return { ok: false as const, error: (error as Error).message };
  }
}

async function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        dir: { type: 'string' },
        json: { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${usage}`);
  }
  const dir = path.resolve(parsed.values.dir ?? process.cwd());
  if (
    !(await fs.stat(dir).then(
      (stats) => stats.isDirectory(),
      () => false,
    ))
  )
    throw new CliError(`--dir ${dir} is not a directory.\n${usage}`);
  return { dir, json: parsed.values.json ?? false, all: parsed.values.all ?? false, positionals: parsed.positionals };
}

async function list(argv: string[], homeDir: string): Promise<number> {
  const { dir, json } = await parse(argv);
  const { servers, untrusted, problems } = await knownServers(dir, homeDir);
  const pool = new McpConnectionPool({ connectTimeoutMs: probeTimeoutMs });
  try {
    const rows = await Promise.all(
      servers.map(async (server) => {
        const result = await probe(pool, server, dir);
        const row: {
          name: string;
          source: string;
          type: string;
          target: string;
          reachable: boolean;
          tools?: number;
          error?: string;
        } = {
          name: server.name,
          source: server.source,
          type: server.spec.type,
          target: describeSpec(server.spec),
          reachable: result.ok,
        };
        if (result.ok) row.tools = result.tools.length;
        else row.error = result.error;
        return row;
      }),
    );
    // Untrusted servers are listed, never started (not even to probe them).
    const notStarted = untrusted.map((server) => ({
      name: server.name,
      source: server.file,
      type: server.spec.type,
      target: describeSpec(server.spec),
      state: server.state,
      trustCommand: server.trustCommand,
    }));
    if (json) console.log(JSON.stringify({ servers: rows, untrusted: notStarted, problems }, null, 2));
    else if (rows.length === 0 && notStarted.length === 0)
      console.log(`No MCP servers: no .mcp.json in ${dir} or its parents, and no inline servers in agent definitions.`);
    else {
      for (const row of rows) {
        const state = row.reachable ? `reachable, ${row.tools} tool(s)` : `UNREACHABLE: ${row.error}`;
        console.log(`${row.name}  [${row.type}] ${row.target}\n  from ${row.source}\n  ${state}`);
      }
      for (const row of notStarted) {
        const state =
          row.state === 'disabled'
            ? 'DISABLED by disabledMcpjsonServers: not started'
            : `NOT TRUSTED: not started. Review it, then trust it: ${row.trustCommand}`;
        console.log(`${row.name}  [${row.type}] ${row.target}\n  from ${row.source}\n  ${state}`);
      }
    }
    if (!json) for (const problem of problems) console.log(`warning  ${problem}`);
    return ExitCode.ok;
  } finally {
    await pool.closeAll();
  }
}

async function tools(argv: string[], homeDir: string): Promise<number> {
  const { dir, json, positionals } = await parse(argv);
  const name = positionals[0];
  if (!name) throw new CliError(`mcp tools needs a server name.\n${usage}`);
  const { servers, untrusted } = await knownServers(dir, homeDir);
  const refused = untrusted.find((candidate) => candidate.name === name);
  if (refused && !servers.some((candidate) => candidate.name === name)) {
    throw new CliError(
      `MCP server "${name}" of ${refused.file} is ${refused.state === 'disabled' ? 'disabled by disabledMcpjsonServers' : `not trusted, so it is not started. Review it, then run: ${refused.trustCommand}`}`,
      ExitCode.notFound,
    );
  }
  const server = servers.find((candidate) => candidate.name === name);
  if (!server)
    throw new CliError(
      `No MCP server "${name}" (known: ${servers.map((candidate) => candidate.name).join(', ') || 'none'}).`,
      ExitCode.notFound,
    );
  const pool = new McpConnectionPool({ connectTimeoutMs: probeTimeoutMs });
  try {
    const result = await probe(pool, server, dir);
    if (!result.ok) throw new CliError(`MCP server "${name}" is not reachable: ${result.error}`, ExitCode.unavailable);
    const { descriptors, skipped } = describeMcpTools(name, result.tools, { allow: 'all', deny: [] });
    if (json) {
      console.log(JSON.stringify({ server: name, tools: descriptors, skipped }, null, 2));
      return ExitCode.ok;
    }
    for (const descriptor of descriptors) {
      const flags = descriptor.classification.readOnly ? 'read-only' : 'needs approval';
      console.log(`${descriptor.definition.name}  (${flags})\n  ${descriptor.definition.description.split('\n')[0]}`);
    }
    for (const note of skipped) console.log(`left out: ${note}`);
    return ExitCode.ok;
  } finally {
    await pool.closeAll();
  }
}

/** `mcp trust` / `mcp untrust`: records (or forgets) the exact spec of `.mcp.json` servers as trusted for their project. */
async function setTrust(argv: string[], homeDir: string, trust: boolean): Promise<number> {
  const verb = trust ? 'trust' : 'untrust';
  const { dir, all, positionals } = await parse(argv);
  if (all === positionals.length > 0)
    throw new CliError(`mcp ${verb} needs server names or --all (not both).\n${usage}`);
  const config = await loadMcpConfig(dir);
  const names = all ? Object.keys(config.servers).sort() : positionals;
  const unknown = names.filter((name) => !(name in config.servers));
  if (unknown.length > 0) {
    throw new CliError(
      `No .mcp.json server ${unknown.map((name) => `"${name}"`).join(', ')} for ${dir} (known: ${Object.keys(config.servers).sort().join(', ') || 'none'}).`,
      ExitCode.notFound,
    );
  }
  if (names.length === 0) console.log(`No .mcp.json servers for ${dir}.`);
  for (const name of names) {
    const spec = config.servers[name]!;
    const file = config.sources[name]!;
    await updateMcpTrustStore(homeDir, path.dirname(file), (trusted) => {
      if (trust) trusted[name] = mcpSpecDigest(spec);
      else delete trusted[name];
    });
    console.log(
      `${trust ? 'Trusted' : 'No longer trusted'}: "${name}" [${spec.type}] ${describeSpec(spec)} of ${file}${trust ? ' (until this configuration changes)' : ''}`,
    );
  }
  return ExitCode.ok;
}

/** `subagents mcp list|tools <server>|trust|untrust`: what is configured, whether it answers, and which project servers may start. */
export async function mcpCommand(argv: string[], options: { homeDir?: string } = {}): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === 'trust') return setTrust(rest, options.homeDir ?? os.homedir(), true);
  if (subcommand === 'untrust') return setTrust(rest, options.homeDir ?? os.homedir(), false);
  if (subcommand === 'list') return list(rest, options.homeDir ?? os.homedir());
  if (subcommand === 'tools') return tools(rest, options.homeDir ?? os.homedir());
  throw new CliError(`${subcommand ? `unknown subcommand "${subcommand}"` : 'a subcommand is needed'}.\n${usage}`);
}
