import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAgentDefinitions } from '../../project/agent-definitions/load';
import { scanDefinitionFiles } from '../../project/agent-definitions/scan';
import { remainingTools } from '../../project/agent-definitions/tool-spec';
import { loadMcpConfig, type McpConfig } from '../../project/mcp-config';
import type { AgentDefinition, LoadedDefinitions } from '../../shared/agents/agent-definition';
import type { ToolRule } from '../../shared/policy/tool-rules';
import { agentMcpInput, type McpServerSpec } from '../../shared/tools/mcp';
import { ExitCode } from '../exit-codes';
import { formatScan } from './agents-scan';
import { loadProjectSettings } from '../../project/settings/project-settings';
import { describeHooks } from '../../shared/policy/hooks';
import { describePermissionRules } from '../../shared/policy/permission-rules';
import { describeSandboxSettings } from '../../shared/policy/sandbox';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { formatTable } from '../table';

const usage =
  'usage: subagents agents [--dir DIR] [--json] | subagents agents --scan PATH [--scan PATH ...] [--reports] [--json]';

/** Options for tests: a home directory other than the real one. */
export interface AgentsListOptions {
  homeDir?: string;
}

function displayPath(file: string, dir: string, homeDir: string): string {
  const fromDir = path.relative(dir, file);
  if (!fromDir.startsWith('..') && !path.isAbsolute(fromDir)) return fromDir;
  const fromHome = path.relative(homeDir, file);
  if (!fromHome.startsWith('..') && !path.isAbsolute(fromHome)) return path.join('~', fromHome);
  return file;
}

const ruleText = (rule: ToolRule) => `${rule.tool}(${rule.content})`;

/** The tools column: the pool, each narrowed tool as its rules (`Bash(git diff:*)`), deny rules after `except`. */
function describeTools(definition: AgentDefinition): string {
  const agentSpec = definition.allowedAgentTypes ? `Agent(${definition.allowedAgentTypes.join(', ')})` : 'Agent';
  const allowRules = definition.toolRules?.allow ?? [];
  const denied = [...(definition.disallowedTools ?? []), ...(definition.toolRules?.deny ?? []).map(ruleText)];
  const except = denied.length === 0 ? '' : ` except ${denied.join(', ')}`;
  if (definition.tools === undefined) return `all${except}`;
  const label = (name: string) => {
    if (name === 'Agent') return agentSpec;
    if (name === 'Bash' && definition.readOnlyBash) return 'Bash (read-only)';
    const rules = allowRules.filter((rule) => rule.tool === name);
    return rules.length > 0 ? rules.map(ruleText).join(', ') : name;
  };
  const tools = [
    ...remainingTools(definition.tools, definition.disallowedTools).map(label),
    ...(definition.mcpTools ?? []),
  ];
  const ruleExcept =
    (definition.toolRules?.deny ?? []).length === 0
      ? ''
      : ` except ${(definition.toolRules?.deny ?? []).map(ruleText).join(', ')}`;
  return tools.length === 0 ? 'none' : `${tools.join(', ')}${ruleExcept}`;
}

/** The MCP servers an agent of this type starts (required ones marked `!`, inline ones `(inline)`, missing ones `(not configured)`). */
function describeMcpServers(definition: AgentDefinition, configured: Readonly<Record<string, McpServerSpec>>): string {
  const mcp = agentMcpInput(definition, configured);
  const inline = new Set((definition.mcpServers ?? []).filter((entry) => entry.spec).map((entry) => entry.name));
  const required = new Set(mcp?.required ?? []);
  const names = [...new Set([...Object.keys(mcp?.servers ?? {}), ...required])];
  const described = names.map(
    (name) =>
      `${name}${required.has(name) ? '!' : ''}${inline.has(name) ? ' (inline)' : name in (mcp?.servers ?? {}) ? '' : ' (not configured)'}`,
  );
  return described.length === 0 ? '-' : described.join(', ');
}

/** The hooks of each agent type, and what the settings files configure for a tree started here (docs/hooks.md, docs/configuration.md). */
function formatHooksAndSettings(
  loaded: LoadedDefinitions,
  settings: TreeSettings,
  dir: string,
  homeDir: string,
): string[] {
  const lines: string[] = [];
  const withHooks = Object.values(loaded.definitions).filter(
    (definition) => describeHooks(definition.hooks).length > 0,
  );
  if (withHooks.length > 0) {
    lines.push('', 'Agent hooks (front matter; Stop runs as SubagentStop in a subagent):');
    for (const definition of withHooks)
      for (const line of describeHooks(definition.hooks)) lines.push(`  ${definition.name}  ${line}`);
  }
  const hooks = describeHooks(settings.hooks);
  const rules = describePermissionRules(settings.permissions).map((line) =>
    line.replace(/\(([^()]*)\)$/, (_match, file: string) => `(${displayPath(file, dir, homeDir)})`),
  );
  const sandbox = describeSandboxSettings(settings.sandbox);
  if (hooks.length > 0 || rules.length > 0 || sandbox.length > 0) {
    lines.push(
      '',
      `Settings (${settings.files.map((file) => displayPath(file, dir, homeDir)).join(', ') || 'no readable file'}), for every agent of a tree started here:`,
    );
    for (const line of hooks) lines.push(`  hook  ${line}`);
    for (const line of rules) lines.push(`  rule  ${line}`);
    for (const line of sandbox) lines.push(`  sandbox  ${line}`);
  }
  return lines;
}

function formatLoaded(
  loaded: LoadedDefinitions,
  mcp: McpConfig,
  settings: TreeSettings,
  dir: string,
  homeDir: string,
): string {
  const configured = Object.keys(mcp.servers);
  const rows = Object.values(loaded.definitions).map((definition) => [
    definition.name,
    definition.file ? `${definition.source} ${displayPath(definition.file, dir, homeDir)}` : definition.source,
    describeTools(definition),
    describeMcpServers(definition, mcp.servers),
    definition.model ?? 'inherit',
  ]);
  const lines = formatTable([['NAME', 'SOURCE', 'TOOLS', 'MCP SERVERS', 'MODEL'], ...rows]);
  if (configured.length > 0) {
    lines.push(
      '',
      `MCP servers (${mcp.files.map((file) => displayPath(file, dir, homeDir)).join(', ')}): ${configured.map((name) => `${name} (${mcp.servers[name]!.type})`).join(', ')}`,
    );
  }
  lines.push(...formatHooksAndSettings(loaded, settings, dir, homeDir));
  if (!Object.values(loaded.definitions).some((definition) => definition.file) && loaded.reports.length === 0) {
    lines.push(
      '',
      `No definition files: searched .claude/agents in ${dir} and its parent directories, and ${path.join(homeDir, '.claude', 'agents')}.`,
    );
  }
  if (loaded.reports.length > 0 || settings.problems?.length) {
    lines.push('', 'Reports:');
    for (const report of loaded.reports)
      lines.push(`  ${report.level.padEnd(7)}  ${displayPath(report.file, dir, homeDir)}: ${report.message}`);
    // Each settings problem starts with its file.
    for (const problem of settings.problems ?? []) lines.push(`  ${'warning'.padEnd(7)}  ${problem}`);
  }
  return lines.join('\n');
}

/** `subagents agents`: lists the agent types available in a directory, and problems with definition files. */
export async function agentsListCommand(argv: string[], options: AgentsListOptions = {}): Promise<number> {
  let values: { dir?: string; json?: boolean; scan?: string[]; reports?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        json: { type: 'boolean', default: false },
        scan: { type: 'string', multiple: true },
        reports: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    console.error(`subagents agents: ${(error as Error).message}\n${usage}`);
    return ExitCode.usage;
  }
  if (values.scan) {
    const report = await scanDefinitionFiles(
      values.scan.map((entry) => path.resolve(entry)),
      Object.keys((await loadMcpConfig(process.cwd())).servers),
    );
    console.log(values.json ? JSON.stringify(report, null, 2) : formatScan(report, values.reports ?? false));
    return ExitCode.ok;
  }
  const dir = path.resolve(values.dir ?? process.cwd());
  const isDirectory = await fs.stat(dir).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isDirectory) {
    console.error(`subagents agents: --dir ${dir} is not a directory.\n${usage}`);
    return ExitCode.usage;
  }
  const homeDir = options.homeDir ?? os.homedir();
  const [loaded, mcp, settings] = await Promise.all([
    loadAgentDefinitions({ cwd: dir, homeDir }),
    loadMcpConfig(dir),
    loadProjectSettings(dir, homeDir),
  ]);
  // --json adds `settings` when a settings file exists (or is broken).
  const withSettings = settings.files.length > 0 || settings.problems?.length ? { ...loaded, settings } : loaded;
  console.log(values.json ? JSON.stringify(withSettings, null, 2) : formatLoaded(loaded, mcp, settings, dir, homeDir));
  return ExitCode.ok;
}
