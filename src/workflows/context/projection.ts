import type { AgentResult } from '../../shared/agents/agent';
import { oneShotAgentTypes } from '../../shared/agents/builtin-agents';
import { totalTokens } from '../../shared/model/messages';

function usageTag(result: AgentResult): string {
  return `<usage>total_tokens: ${totalTokens(result.treeUsage)}, tool_uses: ${result.toolUses}, duration_ms: ${result.durationMs}</usage>`;
}

function statusLine(result: AgentResult): string {
  switch (result.status) {
    case 'completed':
      return '';
    case 'max_turns':
      return `Agent stopped at its turn limit (${result.turns} turns); its last output follows.`;
    case 'truncated':
      return `Agent's answer was cut off at the output limit, also after being asked to continue; the text so far follows.`;
    case 'refused':
      return 'Agent refused the task.';
    case 'failed':
      return `Agent failed: ${result.error ?? 'unknown error'}`;
    case 'cancelled':
      return `Agent was stopped${result.error ? `: ${result.error}` : '.'}`;
    case 'interrupted':
      return `Agent was interrupted${result.error ? ` (${result.error})` : ''}; its last output follows.`;
  }
}

/** What a parent sees of a finished child: final text and agentId, never its history (docs/architecture.md). */
export function projectChildResult(result: AgentResult): string {
  const parts = [
    statusLine(result),
    result.finalText.trim() || (result.status === 'completed' ? '(Subagent completed but returned no output.)' : ''),
  ];
  // One-shot types (Explore, Plan) are not meant to be continued: no agentId.
  if (!oneShotAgentTypes.includes(result.agentType)) parts.push(`agentId: ${result.agentId}`);
  const worktree = result.worktree;
  if (worktree?.kept && worktree.madeBy === 'hook') {
    // No branch to merge, and no telling what it holds: the runtime only knows where it is.
    parts.push(
      `Worktree kept: ${worktree.path} (made by a WorktreeCreate hook; no WorktreeRemove hook removed it, and it may hold changes)`,
    );
  } else if (worktree?.kept) {
    parts.push(
      `Worktree kept: ${worktree.path} (branch ${worktree.branch})` +
        (worktree.changedFiles.length ? `\nChanged files: ${worktree.changedFiles.join(', ')}` : '') +
        (worktree.commits.length ? `\nCommits: ${worktree.commits.join('; ')}` : ''),
    );
  }
  if (result.undelivered?.length)
    parts.push(`Undelivered messages (the agent finished first): ${result.undelivered.join(' | ')}`);
  return parts.filter((part) => part.length > 0).join('\n\n');
}

/** The text a parent gets when a background child finishes (a task notification). */
export function taskNotification(result: AgentResult, description: string, toolUseId: string): string {
  const status = result.status === 'cancelled' ? 'killed' : result.status === 'completed' ? 'completed' : 'failed';
  const summary = `Agent "${description}" ${status === 'killed' ? 'was stopped' : status}`;
  return [
    '<task-notification>',
    `<task-id>${result.agentId}</task-id>`,
    `<tool-use-id>${toolUseId}</tool-use-id>`,
    `<status>${status}</status>`,
    `<summary>${summary}</summary>`,
    `<result>${[statusLine(result), result.finalText.trim()].filter(Boolean).join('\n')}</result>`,
    usageTag(result),
    '</task-notification>',
  ].join('\n');
}

/** The Agent tool's immediate answer for a background launch. */
export function asyncLaunchedText(agentId: string, description: string): string {
  return (
    `Async agent launched successfully (status: async_launched).\nagentId: ${agentId}\n` +
    `The agent "${description}" is working in the background. You will be notified automatically when it completes; ` +
    'do not poll. Continue with other work, or end your turn to wait for it.'
  );
}

/** The Agent tool's answer when a foreground child was moved to the background. */
export function autoBackgroundedText(agentId: string, description: string, afterMs: number): string {
  return (
    `The agent "${description}" (agentId: ${agentId}) was still running after ${Math.round(afterMs / 1000)} s and now runs in the background ` +
    'without having been restarted. You will be notified automatically when it completes.'
  );
}
