import { ExitCode } from './exit-codes';
import type { AgentResult, AgentStatusSnapshot, StallReport } from '../shared/agents/agent';
import type { TokenUsage } from '../shared/model/messages';
import { colorEnabled, colorize } from '../shared/agents/agent-colors';
import { todoLines, todoSummary } from '../shared/tools/todos';

/** `12,345 in · 678 out · 9,000 cache read · 1,200 cache write` */
export function formatUsage(usage: TokenUsage): string {
  const number = (value: number) => value.toLocaleString('en-US');
  const searches = usage.webSearchRequests ? ` · ${number(usage.webSearchRequests)} web search(es)` : '';
  return `${number(usage.inputTokens)} in · ${number(usage.outputTokens)} out · ${number(usage.cacheReadInputTokens)} cache read · ${number(usage.cacheCreationInputTokens)} cache write${searches}`;
}

/** Whether this process's standard error takes colours (progress lines go there). */
export const stderrColor = (): boolean => colorEnabled(process.stderr, process.env);

/** One progress line for --follow: the agent's type in its definition's colour when `color` is on. */
export function formatProgress(status: AgentStatusSnapshot, color = false): string {
  const activity = status.waitingFor
    ? `waiting for ${status.waitingFor}`
    : status.state === 'running_tools'
      ? `running ${status.currentTools.join(', ') || status.lastTool || 'tools'}`
      : status.state.replace('_', ' ');
  const context = status.context
    ? ` · context ${status.context.estimatedTokens.toLocaleString('en-US')}/${status.context.window.toLocaleString('en-US')} tokens` +
      (status.context.compactions.count > 0 ? `, ${status.context.compactions.count} compaction(s)` : '')
    : '';
  return `[${status.agentId}] ${colorize(status.agentType, status.color, color)} · turn ${status.turn}/${status.maxTurns} · ${activity} · ${status.toolUses} tool uses · ${formatUsage(status.usage)}${context}`;
}

/** `3 (Bash 2, Edit 1)` */
export function formatDenials(denials: AgentStatusSnapshot['permissionDenials']): string {
  const byTool = Object.entries(denials.byTool)
    .map(([tool, count]) => `${tool} ${count}`)
    .join(', ');
  return `${denials.count}${byTool ? ` (${byTool})` : ''}`;
}

/** `status`: the progress line, then the todo list and MCP servers when the agent has them. */
export function formatStatus(status: AgentStatusSnapshot): string {
  const lines = [formatProgress(status)];
  if (status.permissionDenials?.count) lines.push(`permission denials: ${formatDenials(status.permissionDenials)}`);
  if (status.stalled) lines.push(`STALLED: ${formatStall(status.stalled)}`);
  if (status.turns && status.turns.last >= 0)
    lines.push(
      `turns 0–${status.turns.last} can be forked or rewound · ${status.turns.checkpoints} file checkpoint(s)` +
        (status.turns.checkpointsUnavailable
          ? ` · files not checkpointed: ${status.turns.checkpointsUnavailable}`
          : ''),
    );
  if (status.todos?.length)
    lines.push(`todos: ${todoSummary(status.todos)}`, ...todoLines(status.todos).map((line) => `  ${line}`));
  if (status.mcpServers?.length) {
    lines.push(
      `MCP servers: ${status.mcpServers.map((server) => `${server.name} (${server.state}${server.state === 'connected' ? `, ${server.tools} tools` : server.error ? `: ${server.error}` : ''})`).join(', ')}`,
    );
  }
  return lines.join('\n');
}

/** A stall report in a few words: "no progress for 42s (running Bash), since 12:00:01Z". */
export function formatStall(stall: StallReport): string {
  return `no progress for ${Math.round(stall.afterMs / 1000)}s (${stall.activity}) since ${new Date(stall.sinceMs).toISOString()}${stall.action === 'stop' ? ', stopping' : ''}`;
}

/** The result: status and error, counts, usage, `extraLines` (e.g. the budget's), then the final text. */
/** A finished agent's exit code: 0 when it completed, 1 otherwise. */
export function exitCodeFor(result: AgentResult): number {
  return result.status === 'completed' ? ExitCode.ok : ExitCode.agentUnsuccessful;
}

export function formatResult(result: AgentResult, extraLines: readonly string[] = []): string {
  return [
    `status: ${result.status}${result.error ? ` (${result.error})` : ''}`,
    `turns: ${result.turns} · tool uses: ${result.toolUses} · ${(result.durationMs / 1000).toFixed(1)} s · model ${result.model}`,
    `usage: ${formatUsage(result.usage)}`,
    ...extraLines,
    '',
    result.finalText,
  ].join('\n');
}
