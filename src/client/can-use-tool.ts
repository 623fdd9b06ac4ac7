// A Claude Agent SDK `canUseTool` callback answering a tree's approval requests (docs/api.md, "canUseTool").
import { isDeepStrictEqual } from 'node:util';
import type { WorkflowClient, WorkflowHandle } from '@temporalio/client';
import {
  answerApprovalUpdate,
  approvalsQuery,
  conversationQuery,
  interruptSignal,
  statusQuery,
} from '../shared/protocol/definitions';
import type { ApprovalRequest } from '../shared/protocol/tree';

/** A permission rule change the SDK suggests or returns (`addRules` with behavior `allow` for the asking tool answers "always"). */
export interface PermissionUpdate {
  type: string;
  rules?: Array<{ toolName: string; ruleContent?: string }>;
  behavior?: string;
  destination?: string;
  [key: string]: unknown;
}

/** The callback's answer, as in the Claude Agent SDK. */
export type PermissionResult =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[] }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

/** The third argument of the callback, as in the Claude Agent SDK, with the runtime's request beside it. */
export interface CanUseToolOptions {
  /** Aborted when the request is answered elsewhere or withdrawn, or the run ends. */
  signal: AbortSignal;
  suggestions?: PermissionUpdate[];
  toolUseID: string;
  /** The agent that asks: the root or a subagent at any depth (its workflow id). */
  agentID: string;
  /** Why it is asked (the runtime's one-line summary of the call). */
  decisionReason: string;
  /** This runtime's request, for whatever the SDK shape leaves out (agent type, "always" scope). */
  request: ApprovalRequest;
}

/** The Claude Agent SDK's `canUseTool`. */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: CanUseToolOptions,
) => Promise<PermissionResult>;

/** How a watcher polls and reports (defaults: every 250 ms, errors to the console). */
export interface CanUseToolWatchOptions {
  pollMs?: number;
  /** Stops the watcher. */
  signal?: AbortSignal;
  /** A failed poll, a throwing callback (its request is denied), an answer that could not be delivered. */
  onError?: (error: unknown) => void;
}

/** A running watcher: `done` settles once it has stopped (the run ended, `stop()`, or its signal). */
export interface CanUseToolWatcher {
  stop(): void;
  done: Promise<void>;
}

/** The approval's answer from the callback's result; an `updatedInput` other than the call's runs in its place (checked as the model's). */
export function approvalAnswer(
  toolName: string,
  input: Record<string, unknown>,
  result: PermissionResult,
): { approve: boolean; always: boolean; reason?: string; interrupt: boolean; updatedInput?: Record<string, unknown> } {
  if (result.behavior === 'deny')
    return {
      approve: false,
      always: false,
      reason: result.message || 'denied by canUseTool',
      interrupt: result.interrupt === true,
    };
  if (result.behavior !== 'allow')
    return {
      approve: false,
      always: false,
      reason: `canUseTool returned behavior ${JSON.stringify((result as { behavior?: unknown }).behavior)}`,
      interrupt: false,
    };
  const updated =
    result.updatedInput !== undefined && !isDeepStrictEqual(result.updatedInput, input)
      ? { updatedInput: result.updatedInput }
      : {};
  const always = (result.updatedPermissions ?? []).some(
    (update) =>
      update.type === 'addRules' &&
      update.behavior === 'allow' &&
      (update.rules ?? []).some((rule) => rule.toolName === toolName && !rule.ruleContent),
  );
  return { approve: true, always, interrupt: false, ...updated };
}

/** The input of the asking call, read from the asking agent's conversation (the request holds only a summary). */
async function callInput(client: WorkflowClient, request: ApprovalRequest): Promise<Record<string, unknown>> {
  const agent = client.getHandle(request.agentId);
  const { messageCount } = await agent.query(statusQuery);
  for (const from of [Math.max(0, messageCount - 4), 0]) {
    const { messages } = await agent.query(conversationQuery, { from });
    for (const message of [...messages].reverse()) {
      if (message.role !== 'assistant' || typeof message.content === 'string') continue;
      const block = message.content.find((item) => item.type === 'tool_use' && item.id === request.toolUseId);
      if (block && block.type === 'tool_use') return block.input as Record<string, unknown>;
    }
    if (from === 0) break;
  }
  return {};
}

/** Answers `root`'s approval requests with `canUseTool` until the run ends; requests of subagents at any depth included. */
export function watchApprovals(
  root: WorkflowHandle,
  canUseTool: CanUseTool,
  options: CanUseToolWatchOptions = {},
): CanUseToolWatcher {
  const pollMs = options.pollMs ?? 250;
  const onError =
    options.onError ??
    ((error: unknown) => console.warn(`canUseTool: ${error instanceof Error ? error.message : String(error)}`));
  const stopping = new AbortController();
  const inFlight = new Map<string, AbortController>();
  const answered = new Set<string>();
  const stop = () => stopping.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  // The run's end (followed across continue-as-new) stops the watcher.
  root.result().then(stop, stop);

  const answer = async (request: ApprovalRequest, controller: AbortController) => {
    let decision: ReturnType<typeof approvalAnswer>;
    try {
      const input = await callInput(root.client, request);
      // Answered or withdrawn while its input was read: nobody is asked.
      if (controller.signal.aborted) return;
      const result = await canUseTool(request.tool, input, {
        signal: controller.signal,
        toolUseID: request.toolUseId,
        agentID: request.agentId,
        decisionReason: request.inputSummary,
        ...(request.permission
          ? {
              suggestions: [
                {
                  type: 'addRules',
                  behavior: 'allow',
                  rules: [{ toolName: request.tool, ruleContent: request.permission }],
                },
              ],
            }
          : {}),
        request,
      });
      decision = approvalAnswer(request.tool, input, result);
    } catch (error) {
      if (controller.signal.aborted) return;
      onError(error);
      decision = {
        approve: false,
        always: false,
        reason: `canUseTool failed: ${error instanceof Error ? error.message : String(error)}`,
        interrupt: false,
      };
    }
    if (controller.signal.aborted) return;
    await root.executeUpdate(answerApprovalUpdate, {
      args: [
        {
          requestId: request.requestId,
          approved: decision.approve,
          always: decision.always,
          by: 'canUseTool',
          ...(decision.reason ? { reason: decision.reason } : {}),
          ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}),
        },
      ],
    });
    answered.add(request.requestId);
    if (decision.interrupt)
      await root.client
        .getHandle(request.agentId)
        .signal(interruptSignal, { by: 'canUseTool', reason: decision.reason ?? 'interrupted by canUseTool' });
  };

  const poll = async () => {
    const pending = await root.query(approvalsQuery);
    const open = new Set(pending.map((request) => request.requestId));
    // Answered elsewhere (a person, another client) or withdrawn: the callback's answer is no longer wanted.
    for (const [requestId, controller] of inFlight) if (!open.has(requestId)) controller.abort();
    for (const request of pending) {
      if (inFlight.has(request.requestId) || answered.has(request.requestId) || request.withdrawn) continue;
      const controller = new AbortController();
      inFlight.set(request.requestId, controller);
      void answer(request, controller)
        .catch((error: unknown) => {
          if (!controller.signal.aborted) onError(error);
        })
        .finally(() => inFlight.delete(request.requestId));
    }
  };

  const done = (async () => {
    while (!stopping.signal.aborted) {
      await poll().catch((error: unknown) => {
        if (!stopping.signal.aborted) onError(error);
      });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
    for (const controller of inFlight.values()) controller.abort();
    options.signal?.removeEventListener('abort', stop);
  })();
  return { stop, done };
}
