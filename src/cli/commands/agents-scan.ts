import type { ScanReport } from '../../project/agent-definitions/scan';

const list = (counts: Record<string, number>) =>
  Object.keys(counts).length === 0
    ? 'none'
    : Object.entries(counts)
        .map(([name, files]) => `${name} (${files})`)
        .join(', ');

/** `subagents agents --scan`: what a corpus of Claude Code agent files loses when it runs here. */
export function formatScan(report: ScanReport, showReports: boolean): string {
  const lines = [
    `Scanned ${report.files} file(s) under ${report.paths.join(', ')}: ${report.loaded} loaded, ${report.skipped} skipped.`,
    '',
    'Counts are numbers of files.',
    `Dropped standard Claude Code tools: ${list(report.droppedStandardTools)}`,
    `Dropped task-list (board) tools: ${list(report.droppedBoardTools)}`,
    `All dropped tool entries: ${list(report.droppedTools)}`,
    `Fields kept but not acted on: ${list(report.unsupportedFields)}`,
    `Definitions naming MCP servers that are not configured: ${report.unconfiguredMcpServers}`,
  ];
  if (showReports && report.reports.length > 0) {
    lines.push('', 'Reports:');
    for (const entry of report.reports) lines.push(`  ${entry.level.padEnd(7)}  ${entry.file}: ${entry.message}`);
  }
  return lines.join('\n');
}
