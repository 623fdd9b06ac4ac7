import type { AgentResult, AgentStatusSnapshot } from '../shared/agent';
import type { MessageParam, TokenUsage } from '../shared/messages';
import { textOf } from '../workflows/tool-results';

/** `12,345 in · 678 out · 9,000 cache read · 1,200 cache write` */
export function formatUsage(usage: TokenUsage): string {
  const number = (value: number) => value.toLocaleString('en-US');
  return `${number(usage.inputTokens)} in · ${number(usage.outputTokens)} out · ${number(usage.cacheReadInputTokens)} cache read · ${number(usage.cacheCreationInputTokens)} cache write`;
}

/** One progress line for --follow. */
export function formatProgress(status: AgentStatusSnapshot): string {
  const activity =
    status.state === 'running_tools' ? `running ${status.currentTools.join(', ') || status.lastTool}` : status.state.replace('_', ' ');
  return `[${status.agentId}] turn ${status.turn}/${status.maxTurns} · ${activity} · ${status.toolUses} tool uses · ${formatUsage(status.usage)}`;
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

/** A readable transcript: one section per message, tool calls and results abbreviated. */
export function formatTranscript(messages: readonly MessageParam[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      lines.push(`── ${message.role}`, message.content);
      continue;
    }
    lines.push(`── ${message.role}`);
    for (const block of message.content) {
      if (block.type === 'text') lines.push(block.text);
      else if (block.type === 'tool_use') lines.push(`→ ${block.name} ${JSON.stringify(block.input)}`);
      else if (block.type === 'tool_result') {
        const content = typeof block.content === 'string' ? block.content : textOf(block.content);
        const preview = content.length > 400 ? `${content.slice(0, 400)}… (${content.length} chars)` : content;
        lines.push(`← ${block.is_error ? 'error ' : ''}${preview}`);
      } else if (block.type === 'thinking') lines.push(`(thinking) ${block.thinking.slice(0, 200)}`);
    }
  }
  return lines.join('\n');
}
