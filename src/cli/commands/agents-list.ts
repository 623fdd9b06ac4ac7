import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAgentDefinitions } from '../../activities/agent-definitions/load';
import { remainingTools } from '../../activities/agent-definitions/tool-spec';
import type { AgentDefinition, LoadedDefinitions } from '../../shared/agent-definition';
import { ExitCode } from '../exit-codes';

const usage = 'usage: subagents agents [--dir DIR] [--json]';

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

function describeTools(definition: AgentDefinition): string {
  const agentSpec = definition.allowedAgentTypes ? `Agent(${definition.allowedAgentTypes.join(', ')})` : 'Agent';
  if (definition.tools === undefined) {
    const denied = definition.disallowedTools ?? [];
    return denied.length === 0 ? 'all' : `all except ${denied.join(', ')}`;
  }
  const label = (name: string) => (name === 'Agent' ? agentSpec : name === 'Bash' && definition.readOnlyBash ? 'Bash (read-only)' : name);
  const tools = remainingTools(definition.tools, definition.disallowedTools).map(label);
  return tools.length === 0 ? 'none' : tools.join(', ');
}

function formatTable(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '));
}

function formatLoaded(loaded: LoadedDefinitions, dir: string, homeDir: string): string {
  const rows = Object.values(loaded.definitions).map((definition) => [
    definition.name,
    definition.file ? `${definition.source} ${displayPath(definition.file, dir, homeDir)}` : definition.source,
    describeTools(definition),
    definition.model ?? 'inherit',
  ]);
  const lines = formatTable([['NAME', 'SOURCE', 'TOOLS', 'MODEL'], ...rows]);
  if (!Object.values(loaded.definitions).some((definition) => definition.file) && loaded.reports.length === 0) {
    lines.push('', `No definition files: searched .claude/agents in ${dir} and its parent directories, and ${path.join(homeDir, '.claude', 'agents')}.`);
  }
  if (loaded.reports.length > 0) {
    lines.push('', 'Reports:');
    for (const report of loaded.reports) lines.push(`  ${report.level.padEnd(7)}  ${displayPath(report.file, dir, homeDir)}: ${report.message}`);
  }
  return lines.join('\n');
}

/** `subagents agents`: lists the agent types available in a directory, and problems with definition files. */
export async function agentsListCommand(argv: string[], options: AgentsListOptions = {}): Promise<number> {
  let values: { dir?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { dir: { type: 'string' }, json: { type: 'boolean', default: false } } }));
  } catch (error) {
    console.error(`subagents agents: ${(error as Error).message}\n${usage}`);
    return ExitCode.usage;
  }
  const dir = path.resolve(values.dir ?? process.cwd());
  const isDirectory = await fs.stat(dir).then((stats) => stats.isDirectory(), () => false);
  if (!isDirectory) {
    console.error(`subagents agents: --dir ${dir} is not a directory.\n${usage}`);
    return ExitCode.usage;
  }
  const homeDir = options.homeDir ?? os.homedir();
  const loaded = await loadAgentDefinitions({ cwd: dir, homeDir });
  console.log(values.json ? JSON.stringify(loaded, null, 2) : formatLoaded(loaded, dir, homeDir));
  return ExitCode.ok;
}
