// `subagents agents --scan`: counts what the runtime drops from a corpus of agent files (docs/agent-definitions.md).
import { taskBoardToolNames } from '../../shared/policy/tool-classification';
import fs from 'node:fs/promises';
import type { DefinitionReport } from '../../shared/agents/agent-definition';
import { compareText, findDefinitionFiles } from './discover';
import { unconfiguredMcpServers } from './load';
import { parseDefinitionFile } from './parse-definition';

/** Claude Code's built-in tool names (its tools reference), to tell a dropped standard tool from a typo or a custom name. */
export const claudeCodeToolNames: readonly string[] = [
  'Agent',
  'Task',
  'AskUserQuestion',
  'Bash',
  'BashOutput',
  'CronCreate',
  'CronDelete',
  'CronList',
  'Edit',
  'EnterPlanMode',
  'EnterWorktree',
  'ExitPlanMode',
  'ExitWorktree',
  'Glob',
  'Grep',
  'KillShell',
  'LS',
  'LSP',
  'ListMcpResourcesTool',
  'Monitor',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'PowerShell',
  'Read',
  'ReadMcpResourceTool',
  'SendMessage',
  'Skill',
  'SlashCommand',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskOutput',
  'TaskStop',
  'TaskUpdate',
  'TeamCreate',
  'TeamDelete',
  'TodoRead',
  'TodoWrite',
  'ToolSearch',
  'WebFetch',
  'WebSearch',
  'Workflow',
  'Write',
];

/** The shared task-list tools, which come with the board (a later issue). */
export const boardToolNames: readonly string[] = taskBoardToolNames;

export interface ScanReport {
  paths: string[];
  files: number;
  loaded: number;
  skipped: number;
  /** Dropped `tools`/`disallowedTools` entries → number of files. */
  droppedTools: Record<string, number>;
  /** The subset that are Claude Code's own tools (board task-list tools apart). */
  droppedStandardTools: Record<string, number>;
  droppedBoardTools: Record<string, number>;
  /** Front-matter fields kept but not acted on → number of files. */
  unsupportedFields: Record<string, number>;
  /** Definitions whose MCP servers are not configured. */
  unconfiguredMcpServers: number;
  reports: DefinitionReport[];
}

const count = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

const sorted = (counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).sort(([a], [b]) => compareText(a, b)));

/** Scans files and directories (every `*.md` below a directory); `configuredMcpServers` are the servers counted as configured. */
export async function scanDefinitionFiles(
  paths: readonly string[],
  configuredMcpServers: readonly string[] = [],
): Promise<ScanReport> {
  const files: string[] = [];
  const reports: DefinitionReport[] = [];
  for (const entry of paths) {
    const stats = await fs.stat(entry).catch(() => undefined);
    if (stats?.isFile()) files.push(entry);
    else if (stats?.isDirectory()) {
      const found = await findDefinitionFiles(entry);
      files.push(...found.files);
      reports.push(...found.problems);
    } else reports.push({ file: entry, level: 'skipped', message: 'no such file or directory' });
  }
  const report: ScanReport = {
    paths: [...paths],
    files: files.length,
    loaded: 0,
    skipped: 0,
    droppedTools: {},
    droppedStandardTools: {},
    droppedBoardTools: {},
    unsupportedFields: {},
    unconfiguredMcpServers: 0,
    reports,
  };
  for (const file of [...new Set(files)].sort(compareText)) {
    const parsed = parseDefinitionFile(await fs.readFile(file, 'utf8'), file, 'project');
    reports.push(...parsed.reports);
    if (!parsed.definition) {
      report.skipped += 1;
      continue;
    }
    report.loaded += 1;
    for (const entry of new Set(parsed.droppedTools ?? [])) {
      count(report.droppedTools, entry);
      const name = entry.replace(/\(.*$/, '').trim();
      if (boardToolNames.includes(name)) count(report.droppedBoardTools, name);
      else if (claudeCodeToolNames.includes(name)) count(report.droppedStandardTools, entry);
    }
    for (const field of Object.keys(parsed.definition.unsupported ?? {})) count(report.unsupportedFields, field);
    const unconfigured = unconfiguredMcpServers(parsed.definition, configuredMcpServers);
    if (unconfigured) {
      report.unconfiguredMcpServers += 1;
      reports.push({ file, level: 'warning', message: unconfigured });
    }
  }
  report.droppedTools = sorted(report.droppedTools);
  report.droppedStandardTools = sorted(report.droppedStandardTools);
  report.droppedBoardTools = sorted(report.droppedBoardTools);
  report.unsupportedFields = sorted(report.unsupportedFields);
  return report;
}
