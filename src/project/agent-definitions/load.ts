import fs from 'node:fs/promises';
import os from 'node:os';
import type {
  AgentDefinition,
  DefinitionReport,
  LoadDefinitionsInput,
  LoadedDefinitions,
} from '../../shared/agents/agent-definition';
import { builtinAgents } from '../../shared/agents/builtin-agents';
import { compareText, type DefinitionDirectory, definitionDirectories, findDefinitionFiles } from './discover';
import type { ParsedDefinitionFile } from './parse-definition';
import { parsedDefinitions } from './parse-cache';
import { installedPluginAgentDirectories } from './plugins';
import { findSkills } from '../skills';
import { normalizeMcpName, serverOfPattern } from '../../shared/tools/mcp';
import { loadMcpConfig } from '../mcp-config';
import { applyMcpTrust, type TrustedMcpConfig } from '../mcp-trust';

interface ScannedDirectory {
  directory: DefinitionDirectory;
  files: ParsedDefinitionFile[];
  problems: DefinitionReport[];
}

async function readAndParse(
  file: string,
  source: DefinitionDirectory['source'],
  homeDir: string,
): Promise<ParsedDefinitionFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    return { reports: [{ file, level: 'skipped', message: `cannot read the file: ${(error as Error).message}` }] };
  }
  return parsedDefinitions.parse(text, file, source, homeDir);
}

async function scan(directory: DefinitionDirectory, homeDir: string): Promise<ScannedDirectory> {
  const { files, problems } = await findDefinitionFiles(directory.dir);
  const parsed = await Promise.all(files.map((file) => readAndParse(file, directory.source, homeDir)));
  const plugin = directory.plugin;
  return {
    directory,
    files: plugin === undefined ? parsed : parsed.map((one) => asPluginAgent(one, plugin)),
    problems,
  };
}

/** A plugin's agent as Claude Code loads it: `<plugin>:<name>`, without permissionMode, mcpServers and hooks. */
function asPluginAgent(parsed: ParsedDefinitionFile, plugin: string): ParsedDefinitionFile {
  const definition = parsed.definition;
  if (!definition) return parsed;
  const file = definition.file ?? '';
  const ignored = ['permissionMode', 'mcpServers', 'requiredMcpServers', 'hooks'].filter(
    (field) => definition[field as keyof AgentDefinition] !== undefined,
  );
  // Hooks of a plugin's agent file would run commands nobody in the project configured.
  const {
    permissionMode: _mode,
    mcpServers: _servers,
    requiredMcpServers: _required,
    hooks: _hooks,
    ...kept
  } = definition;
  const renamed: AgentDefinition = { ...kept, name: `${plugin}:${definition.name}` };
  const reports = [...parsed.reports];
  if (ignored.length > 0)
    reports.push({ file, level: 'warning', message: `plugin agents ignore ${ignored.join(', ')} (as in Claude Code)` });
  return { ...parsed, definition: renamed, reports };
}

function shadowReason(winner: AgentDefinition, loser: AgentDefinition): string {
  if (winner.source !== loser.source) return `${winner.source} definitions take precedence over ${loser.source} ones`;
  return 'the definition in the nearer directory (or, within one directory, the first file in path order) wins';
}

function compareReports(left: DefinitionReport, right: DefinitionReport): number {
  return (
    compareText(left.file, right.file) ||
    compareText(left.level, right.level) ||
    compareText(left.message, right.message)
  );
}

/** MCP servers a definition names but neither `.mcp.json` nor its inline entries define. */
export function unconfiguredMcpServers(definition: AgentDefinition, configured: readonly string[]): string | undefined {
  const known = new Set(
    [...configured, ...(definition.mcpServers ?? []).filter((entry) => entry.spec).map((entry) => entry.name)].map(
      normalizeMcpName,
    ),
  );
  const needed = new Map<string, string[]>();
  const need = (server: string, why: string) => needed.set(server, [...(needed.get(server) ?? []), why]);
  for (const pattern of definition.mcpTools ?? []) {
    const server = serverOfPattern(pattern);
    if (server !== undefined) need(server, pattern);
  }
  for (const entry of definition.mcpServers ?? []) if (!entry.spec) need(normalizeMcpName(entry.name), 'mcpServers');
  for (const name of definition.requiredMcpServers ?? []) need(normalizeMcpName(name), 'requiredMcpServers');
  const missing = [...needed].filter(([server]) => !known.has(server));
  if (missing.length === 0) return undefined;
  const list = missing.map(([server, why]) => `"${server}" (${[...new Set(why)].join(', ')})`).join(', ');
  return `MCP server(s) ${list} not configured in .mcp.json or the definition's mcpServers: their tools will be missing`;
}

/** Agent types for `cwd` (project, then user, then built-ins; first name wins); bad files become reports. */
export async function loadAgentDefinitions(input: LoadDefinitionsInput): Promise<LoadedDefinitions> {
  return (await loadAgentDefinitionsAndMcp(input)).loaded;
}

/** `loadAgentDefinitions`, and the MCP configuration it read for its reports (an agent's start needs both: one read of the `.mcp.json` files). */
export async function loadAgentDefinitionsAndMcp(
  input: LoadDefinitionsInput,
): Promise<{ loaded: LoadedDefinitions; mcp: TrustedMcpConfig }> {
  const homeDir = input.homeDir ?? os.homedir();
  const plugins = await installedPluginAgentDirectories(homeDir, input.cwd);
  const directories: DefinitionDirectory[] = [
    ...definitionDirectories(input.cwd, homeDir),
    ...plugins.directories.map(({ dir, plugin }) => ({ dir, source: 'plugin' as const, plugin })),
  ];
  const scanned = await Promise.all(directories.map((directory) => scan(directory, homeDir)));
  const reports: DefinitionReport[] = [...plugins.problems];
  const chosen = new Map<string, AgentDefinition>();

  for (const { files, problems } of scanned) {
    reports.push(...problems);
    for (const parsed of files) {
      const definition = parsed.definition;
      const winner = definition && chosen.get(definition.name);
      if (!definition) reports.push(...parsed.reports);
      else if (winner) {
        // A shadowed file is not used, so its own warnings would only be noise.
        const message = `agent "${definition.name}" is also defined in ${winner.file}, which is used: ${shadowReason(winner, definition)}`;
        reports.push({ file: definition.file ?? '', level: 'skipped', message });
      } else {
        reports.push(...parsed.reports);
        chosen.set(definition.name, definition);
      }
    }
  }

  for (const [name, builtin] of Object.entries(builtinAgents)) {
    const custom = chosen.get(name);
    if (custom) reports.push({ file: custom.file ?? '', level: 'warning', message: `overrides built-in ${name}` });
    else chosen.set(name, structuredClone(builtin));
  }

  for (const definition of chosen.values()) {
    const missing = (definition.allowedAgentTypes ?? []).filter((type) => !chosen.has(type));
    if (missing.length > 0 && definition.file) {
      reports.push({
        file: definition.file,
        level: 'warning',
        message: `tools: Agent(...) names agent types that are not defined: ${missing.join(', ')}`,
      });
    }
  }

  const configured = await loadMcpConfig(input.cwd);
  for (const problem of configured.problems)
    reports.push({ file: problem.file, level: 'warning', message: problem.message });
  for (const definition of chosen.values()) {
    const message = unconfiguredMcpServers(definition, Object.keys(configured.servers));
    if (message && definition.file) reports.push({ file: definition.file, level: 'warning', message });
  }

  for (const definition of chosen.values()) {
    if (!definition.skills?.length || !definition.file) continue;
    const { missing } = await findSkills(definition.skills, input.cwd, homeDir);
    if (missing.length > 0) {
      reports.push({
        file: definition.file,
        level: 'warning',
        message: `skills: ${missing.join(', ')} not found in .claude/skills (here or in a parent directory) or ~/.claude/skills; not preloaded`,
      });
    }
  }

  const names = [...chosen.keys()].sort(compareText);
  const loaded = {
    definitions: Object.fromEntries(names.map((name) => [name, chosen.get(name) as AgentDefinition])),
    reports: reports.sort(compareReports),
    searched: directories.map(({ dir }) => dir),
  };
  // Only servers the user trusted for this project may start (docs/security.md); whoever starts agents reports the others.
  return { loaded, mcp: await applyMcpTrust(configured, homeDir) };
}
