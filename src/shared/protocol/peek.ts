import type { AgentResult, AgentStatusSnapshot } from '../agents/agent';
import { totalTokens } from '../model/messages';
import { taskOutputLimits } from '../tools/task-output-definition';

/** A running child as TaskOutput shows it: from its status query (nothing recorded), bounded. */
export interface AgentPeek {
  agentId: string;
  /** Set when the child could not be asked (no worker answered, or it is gone). */
  error?: string;
  state?: AgentStatusSnapshot['state'];
  waitingFor?: string;
  turn?: number;
  maxTurns?: number;
  lastTool?: string;
  currentTools?: string[];
  totalTokens?: number;
  toolUses?: number;
  /** The end of its latest assistant text. */
  latestText?: string;
  /** Present when the child had finished by the time it was asked. */
  result?: AgentResult;
}

/** The bounded peek of a status snapshot. */
export function peekOf(status: AgentStatusSnapshot): AgentPeek {
  const latest = status.latestText ?? '';
  return {
    agentId: status.agentId,
    state: status.state,
    ...(status.waitingFor ? { waitingFor: status.waitingFor } : {}),
    turn: status.turn,
    maxTurns: status.maxTurns,
    ...(status.lastTool ? { lastTool: status.lastTool } : {}),
    currentTools: status.currentTools,
    totalTokens: totalTokens(status.treeUsage),
    toolUses: status.toolUses,
    latestText:
      latest.length > taskOutputLimits.latestTextChars ? `…${latest.slice(-taskOutputLimits.latestTextChars)}` : latest,
    ...(status.result ? { result: status.result } : {}),
  };
}

/** Lines describing what a running child is doing. */
export function describePeek(peek: AgentPeek): string {
  if (peek.error) return `(its status could not be read: ${peek.error})`;
  const doing =
    peek.state === 'running_tools'
      ? `running ${peek.currentTools?.join(', ') || peek.lastTool || 'tools'}`
      : peek.state === 'waiting'
        ? `waiting for ${peek.waitingFor ?? 'input'}`
        : peek.state === 'calling_model'
          ? 'thinking (model call)'
          : (peek.state ?? 'unknown');
  const lines = [
    `state: ${doing}`,
    `turn: ${peek.turn ?? '?'}/${peek.maxTurns ?? '?'}`,
    ...(peek.lastTool ? [`last tool: ${peek.lastTool}`] : []),
    `tokens: ${peek.totalTokens ?? 0}, tool uses: ${peek.toolUses ?? 0}`,
  ];
  if (peek.latestText?.trim()) lines.push(`latest text:\n${peek.latestText.trim()}`);
  return lines.join('\n');
}
