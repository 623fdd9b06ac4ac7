import type { AgentResult, AgentStatusSnapshot } from '../shared/agent';
import type { TokenUsage } from '../shared/messages';

/** `12,345 in · 678 out · 9,000 cache read · 1,200 cache write` */
export function formatUsage(usage: TokenUsage): string {
  const number = (value: number) => value.toLocaleString('en-US');
  return `${number(usage.inputTokens)} in · ${number(usage.outputTokens)} out · ${number(usage.cacheReadInputTokens)} cache read · ${number(usage.cacheCreationInputTokens)} cache write`;
}

/** One progress line for --follow. */
export function formatProgress(status: AgentStatusSnapshot): string {
  const activity = status.waitingFor
    ? `waiting for ${status.waitingFor}`
    : status.state === 'running_tools'
      ? `running ${status.currentTools.join(', ') || status.lastTool || 'tools'}`
      : status.state.replace('_', ' ');
  const context = status.context
    ? ` · context ${status.context.estimatedTokens.toLocaleString('en-US')}/${status.context.window.toLocaleString('en-US')} tokens` +
      (status.context.compactions.count > 0 ? `, ${status.context.compactions.count} compaction(s)` : '')
    : '';
  return `[${status.agentId}] turn ${status.turn}/${status.maxTurns} · ${activity} · ${status.toolUses} tool uses · ${formatUsage(status.usage)}${context}`;
}

export function formatResult(result: AgentResult): string {
  return [
    `status: ${result.status}${result.error ? ` (${result.error})` : ''}`,
    `turns: ${result.turns} · tool uses: ${result.toolUses} · ${(result.durationMs / 1000).toFixed(1)} s · model ${result.model}`,
    `usage: ${formatUsage(result.usage)}`,
    '',
    result.finalText,
  ].join('\n');
}
