// The lifecycle events beyond the tool and Stop hooks (docs/hooks.md, "Events"): each fires only when a hook is configured for it.
import type { CombinedVerdict } from '../../shared/policy/hook-outcome';
import type {
  HookEvent,
  HookEventFields,
  NotificationType,
  SessionEndReason,
  SessionStartSource,
  StopFailureKind,
} from '../../shared/policy/hooks';
import type { InboxItem } from '../../shared/agents/agent';
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { worktreeSlug, type WorktreeInfo } from '../../shared/workspace/worktree';
import { hookWorktreeChoice, hookWorktreeError } from '../../shared/workspace/hook-worktree';
import { ErrorType, messageOf } from '../../shared/protocol/errors';
import { hooksMayRun, runHooks, type HookedAgent } from './hooks';
import { adoptHookWorktreeOn } from './workspace-activities';

/** Runs an event's hooks with its typed fields; undefined when none is configured (nothing is recorded then). */
export function fireHooks<E extends HookEvent>(
  agent: HookedAgent,
  event: E,
  name: string | undefined,
  fields: HookEventFields[E],
): Promise<CombinedVerdict | undefined> {
  return runHooks(agent, event, name, fields as Record<string, unknown>);
}

/** Notes a hook's `continue: false` (the agent stops after this turn) and returns the verdict. */
function noted(agent: HookedAgent, verdict: CombinedVerdict | undefined): CombinedVerdict | undefined {
  if (verdict?.stop !== undefined) agent.state.hooks.noteStop(verdict.stop);
  return verdict;
}

/** SessionStart (a root's start, resume, or compaction): the context its hooks give the model. */
export async function sessionStartContext(agent: HookedAgent, source: SessionStartSource): Promise<string | undefined> {
  if (agent.input.parentAgentId !== undefined || !hooksMayRun(agent, 'SessionStart', source)) return undefined;
  const verdict = await fireHooks(agent, 'SessionStart', source, { source, model: agent.input.model });
  return verdict?.additionalContext;
}

/** SessionEnd: a root's last step; its hooks cannot change anything. */
export async function sessionEnd(agent: HookedAgent, reason: SessionEndReason): Promise<void> {
  if (agent.input.parentAgentId !== undefined || !hooksMayRun(agent, 'SessionEnd', reason)) return;
  await fireHooks(agent, 'SessionEnd', reason, { reason });
}

/** What UserPromptSubmit hooks make of one prompt: dropped (why), or delivered with context after it. */
export type ScreenedPrompt = { type: 'blocked'; reason: string } | { type: 'deliver'; context?: string };

/** UserPromptSubmit for one prompt (the initial one, or a message or steer). */
export async function screenPrompt(agent: HookedAgent, prompt: string): Promise<ScreenedPrompt> {
  const verdict = noted(agent, await fireHooks(agent, 'UserPromptSubmit', undefined, { prompt }));
  if (verdict?.blocked) {
    const reason = verdict.reason ?? 'a UserPromptSubmit hook blocked it';
    agent.state.hooks.recordNotice(`UserPromptSubmit: a prompt was blocked: ${reason}`);
    return { type: 'blocked', reason };
  }
  return verdict?.additionalContext ? { type: 'deliver', context: verdict.additionalContext } : { type: 'deliver' };
}

/** What a turn boundary drains from the agent's inbox. */
export interface DrainableInbox {
  drain(): string[];
  drainItems(): InboxItem[];
}

/** The inbox's texts to deliver; messages and steers pass UserPromptSubmit first. A promise only when a hook runs. */
export function deliverInbox(agent: HookedAgent, inbox: DrainableInbox): string[] | Promise<string[]> {
  if (!hooksMayRun(agent, 'UserPromptSubmit')) return inbox.drain();
  const items = inbox.drainItems();
  if (!items.some(isPrompt)) return items.map((item) => item.text);
  return screenItems(agent, items);
}

/** `then` with the inbox's texts to deliver: at once, or once UserPromptSubmit hooks have screened them. */
export function withDelivered<T>(
  agent: HookedAgent,
  inbox: DrainableInbox,
  then: (texts: string[]) => T,
): T | Promise<T> {
  const delivering = deliverInbox(agent, inbox);
  return delivering instanceof Promise ? delivering.then(then) : then(delivering);
}

const isPrompt = (item: InboxItem) => item.kind === 'message' || item.kind === 'steer';

async function screenItems(agent: HookedAgent, items: InboxItem[]): Promise<string[]> {
  const texts: string[] = [];
  // One after the other, in arrival order, so the history's order is the inbox's.
  for (const item of items) {
    if (!isPrompt(item)) {
      texts.push(item.text);
      continue;
    }
    const screened = await screenPrompt(agent, item.body ?? item.text);
    if (screened.type === 'blocked') continue;
    texts.push(item.text, ...(screened.context ? [screened.context] : []));
  }
  return texts;
}

/** Notification: the agent waits for someone; its hooks only hear of it. */
export async function notify(agent: HookedAgent, type: NotificationType, message: string): Promise<void> {
  if (!hooksMayRun(agent, 'Notification', type)) return;
  const title = type === 'permission_prompt' ? 'Permission needed' : 'Waiting for input';
  await fireHooks(agent, 'Notification', type, { message, title, notification_type: type });
}

/** StopFailure: the agent ends on an error; output and exit code are ignored, as in Claude Code. */
export async function stopFailure(agent: HookedAgent, error: string): Promise<void> {
  const kind = stopFailureKind(error);
  if (!hooksMayRun(agent, 'StopFailure', kind)) return;
  await fireHooks(agent, 'StopFailure', kind, {
    error: kind,
    error_details: error,
    last_assistant_message: agent.state.lastAssistantText(),
  });
}

/** Claude Code's kind of an agent's error, read from the error text the runtime writes. */
export function stopFailureKind(error: string): StopFailureKind {
  if (/RateLimit|\b429\b|rate.?limit/i.test(error)) return 'rate_limit';
  if (/Authentication|\b401\b|\b403\b|PermissionDenied|api.?key/i.test(error)) return 'authentication_failed';
  if (/billing|credit balance/i.test(error)) return 'billing_error';
  if (/max_tokens|output limit|MaxOutputTokens/i.test(error)) return 'max_output_tokens';
  if (/InvalidRequest|\b400\b|\b413\b|\b422\b|invalid_request/i.test(error)) return 'invalid_request';
  if (/Overloaded|ServerError|\b5\d\d\b|api_error|overloaded/i.test(error)) return 'server_error';
  return 'unknown';
}

/** PreCompact: true when a hook blocks this compaction (exit 2 or `decision: "block"`). */
export async function compactionBlocked(
  agent: HookedAgent,
  trigger: 'manual' | 'auto',
  instructions: string | undefined,
): Promise<boolean> {
  if (!hooksMayRun(agent, 'PreCompact', trigger)) return false;
  const verdict = await fireHooks(agent, 'PreCompact', trigger, {
    trigger,
    custom_instructions: instructions ?? '',
  });
  if (!verdict?.blocked) return false;
  agent.state.hooks.recordNotice(`PreCompact: the compaction was blocked: ${verdict.reason ?? 'no reason given'}`);
  return true;
}

/** PostCompact: the summary the compaction made; nothing to decide. */
export async function compacted(agent: HookedAgent, trigger: 'manual' | 'auto', summary: string): Promise<void> {
  if (!hooksMayRun(agent, 'PostCompact', trigger)) return;
  await fireHooks(agent, 'PostCompact', trigger, { trigger, compact_summary: summary });
}

/** A task of the board, as TaskCreated and TaskCompleted hooks see it. */
export interface HookedTask {
  id: string;
  subject: string;
  description?: string;
  board: string;
}

/** TaskCreated or TaskCompleted: why a hook refuses it (exit 2 / `decision: "block"`), or undefined. */
export async function taskRefusal(
  agent: HookedAgent,
  event: 'TaskCreated' | 'TaskCompleted',
  task: HookedTask,
): Promise<string | undefined> {
  if (!hooksMayRun(agent, event)) return undefined;
  const verdict = noted(
    agent,
    await fireHooks(agent, event, undefined, {
      task_id: task.id,
      task_subject: task.subject,
      task_description: task.description ?? '',
      team_name: task.board,
    }),
  );
  if (!verdict?.blocked) return undefined;
  return verdict.reason ?? `a ${event} hook refused it`;
}

/** CwdChanged once the agent moved into its worktree (git's or a WorktreeCreate hook's). */
export async function worktreeCreated(agent: HookedAgent, worktree: WorktreeInfo, previousCwd: string): Promise<void> {
  if (previousCwd !== worktree.cwd && hooksMayRun(agent, 'CwdChanged'))
    await fireHooks(agent, 'CwdChanged', undefined, { old_cwd: previousCwd, new_cwd: worktree.cwd });
}

/** WorktreeCreate hooks make the agent's worktree instead of git (docs/worktrees.md): the worktree, or the error the agent fails with. */
export async function worktreeFromHooks(agent: HookedAgent): Promise<WorktreeInfo | { error: string }> {
  const { input, state } = agent;
  // Run in the agent's cwd before the worktree; `name` is the slug git's worktree would have had.
  const verdict = await fireHooks(agent, 'WorktreeCreate', undefined, { name: worktreeSlug(input.agentId) });
  const choice = hookWorktreeChoice(input.agentId, verdict);
  if (choice.type === 'failed') return { error: choice.error };
  try {
    return await adoptHookWorktreeOn(input.workspaceWorker, {
      cwd: state.cwd,
      workspaceRoot: state.workspaceRoot,
      printed: choice.path,
      hook: choice.hook,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
    // The activity's refusal already names the hook and the fix; anything else is said as it came.
    if (cause instanceof ApplicationFailure && cause.type === ErrorType.WorktreeCreateFailed)
      return { error: cause.message };
    return { error: hookWorktreeError(input.agentId, messageOf(cause)) };
  }
}

/** WorktreeRemove: after the runtime removed an agent's git worktree, or to remove a hook-made one (docs/worktrees.md). */
export async function worktreeRemoved(agent: HookedAgent, path: string): Promise<void> {
  if (!hooksMayRun(agent, 'WorktreeRemove')) return;
  await fireHooks(agent, 'WorktreeRemove', undefined, { worktree_path: path });
}
