// Claude Agent SDK-shaped subagent progress (task_started, task_progress, task_notification) from the tree query (docs/api.md).
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentStatus, AgentStatusSnapshot } from '../shared/agents/agent';
import type { TokenUsage } from '../shared/model/messages';
import { statusQuery, treeQuery } from '../shared/protocol/definitions';
import type { TreeNode } from '../shared/protocol/tree';

/** Fields every message has, as in the SDK: `session_id` is the tree's root agent id. */
interface SdkSystemMessage {
  type: 'system';
  uuid: string;
  session_id: string;
  task_id: string;
  tool_use_id?: string;
}

/** A subagent started (SDK `SDKTaskStartedMessage`; `subagent_type`, `is_backgrounded`, `spawn_depth` as newer SDKs send). */
export interface SdkTaskStartedMessage extends SdkSystemMessage {
  subtype: 'task_started';
  description: string;
  task_type: 'local_agent';
  subagent_type: string;
  is_backgrounded: boolean;
  spawn_depth: number;
}

/** Task usage, as in the SDK. */
export interface SdkTaskUsage {
  total_tokens: number;
  tool_uses: number;
  duration_ms: number;
}

/** A running subagent's usage and last tool (SDK `SDKTaskProgressMessage`). */
export interface SdkTaskProgressMessage extends SdkSystemMessage {
  subtype: 'task_progress';
  description: string;
  usage: SdkTaskUsage;
  last_tool_name?: string;
}

/** A subagent ended (SDK `SDKTaskNotificationMessage`); `output_file` is '' (the result is `getAgent(task_id).result()`). */
export interface SdkTaskNotificationMessage extends SdkSystemMessage {
  subtype: 'task_notification';
  status: 'completed' | 'failed' | 'stopped';
  output_file: string;
  summary: string;
  usage?: SdkTaskUsage;
}

export type SdkTaskMessage = SdkTaskStartedMessage | SdkTaskProgressMessage | SdkTaskNotificationMessage;

/** How the stream polls (default every 500 ms) and when it stops (the run's end, or `signal`). */
export interface ProgressOptions {
  pollMs?: number;
  signal?: AbortSignal;
}

/** All tokens of a usage record (input, output, cache writes and reads). */
export const totalTokens = (usage: TokenUsage): number =>
  usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;

/** The SDK's three end states: completed; stopped for a stop or an interrupt; failed for everything else (max turns included). */
export function notificationStatus(status: AgentStatus | undefined): SdkTaskNotificationMessage['status'] {
  if (status === 'completed') return 'completed';
  if (status === 'cancelled' || status === 'interrupted') return 'stopped';
  return 'failed';
}

const base = (node: TreeNode, sessionId: string, toolUseId: string | undefined) => ({
  type: 'system' as const,
  uuid: randomUUID(),
  session_id: sessionId,
  task_id: node.agentId,
  ...(toolUseId ? { tool_use_id: toolUseId } : {}),
});

export function taskStarted(node: TreeNode, sessionId: string, toolUseId?: string): SdkTaskStartedMessage {
  return {
    ...base(node, sessionId, toolUseId),
    subtype: 'task_started',
    description: node.description ?? node.agentType,
    task_type: 'local_agent',
    subagent_type: node.agentType,
    is_backgrounded: node.background,
    spawn_depth: node.depth,
  };
}

export function taskProgress(
  node: TreeNode,
  status: Pick<AgentStatusSnapshot, 'usage' | 'toolUses' | 'lastTool' | 'startedAtMs'>,
  sessionId: string,
  nowMs: number,
  toolUseId?: string,
): SdkTaskProgressMessage {
  return {
    ...base(node, sessionId, toolUseId),
    subtype: 'task_progress',
    description: node.description ?? node.agentType,
    usage: {
      total_tokens: totalTokens(status.usage),
      tool_uses: status.toolUses,
      duration_ms: Math.max(0, nowMs - status.startedAtMs),
    },
    ...(status.lastTool ? { last_tool_name: status.lastTool } : {}),
  };
}

export function taskNotification(
  node: TreeNode,
  result: AgentResult | undefined,
  sessionId: string,
  toolUseId?: string,
): SdkTaskNotificationMessage {
  const text = result ? (result.status === 'completed' ? result.finalText : (result.error ?? result.finalText)) : '';
  return {
    ...base(node, sessionId, toolUseId),
    subtype: 'task_notification',
    status: result ? notificationStatus(result.status) : 'stopped',
    output_file: '',
    summary: text.length > 2000 ? `${text.slice(0, 1997)}...` : text,
    ...(result
      ? {
          usage: {
            total_tokens: totalTokens(result.usage),
            tool_uses: result.toolUses,
            duration_ms: result.durationMs,
          },
        }
      : {}),
  };
}

/** What the stream last said of one subagent. */
interface Seen {
  toolUseId?: string;
  progressKey?: string;
  notified: boolean;
}

/** The stream of `root`'s subagents (only those under `under`, when given) until the run ends or `signal` aborts. */
export async function* progressMessages(
  root: WorkflowHandle,
  options: ProgressOptions & { under?: string } = {},
): AsyncGenerator<SdkTaskMessage> {
  const pollMs = options.pollMs ?? 500;
  let ended = false;
  root.result().then(
    () => (ended = true),
    () => (ended = true),
  );
  const seen = new Map<string, Seen>();
  const client = root.client;
  const status = (agentId: string) => client.getHandle(agentId).query(statusQuery);
  const toolUseIdOf = async (node: TreeNode): Promise<string | undefined> => {
    if (!node.parentAgentId) return undefined;
    const parent = await status(node.parentAgentId).catch(() => undefined);
    return parent?.children.find((child) => child.agentId === node.agentId)?.toolUseId;
  };
  for (;;) {
    const last = ended || options.signal?.aborted === true;
    const tree = await root.query(treeQuery);
    const nodes = tree.nodes.filter(
      (node) => node.depth > 0 && (options.under === undefined || node.agentId.startsWith(`${options.under}.`)),
    );
    for (const node of nodes) {
      let record = seen.get(node.agentId);
      if (!record) {
        record = { notified: false };
        const toolUseId = await toolUseIdOf(node);
        if (toolUseId) record.toolUseId = toolUseId;
        seen.set(node.agentId, record);
        yield taskStarted(node, tree.rootAgentId, record.toolUseId);
      }
      if (record.notified) continue;
      const snapshot = await status(node.agentId).catch(() => undefined);
      if (node.status === 'finished' || snapshot?.state === 'finished') {
        record.notified = true;
        yield taskNotification(node, snapshot?.result, tree.rootAgentId, record.toolUseId);
        continue;
      }
      if (!snapshot) continue;
      const key = `${totalTokens(snapshot.usage)}/${snapshot.toolUses}/${snapshot.lastTool ?? ''}`;
      if (key === record.progressKey) continue;
      record.progressKey = key;
      yield taskProgress(node, snapshot, tree.rootAgentId, Date.now(), record.toolUseId);
    }
    if (last) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      options.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
