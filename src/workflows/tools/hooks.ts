import { log } from '@temporalio/workflow';
import { combineVerdicts, type CombinedVerdict, type HookVerdict } from '../../shared/policy/hook-outcome';
import { agentHooks, hookLimits, hooksFor, mergeHooks, type HookEvent } from '../../shared/policy/hooks';
import { hookIdentity, type HookHandler } from '../../shared/policy/hook-handlers';
import { asyncHooksRunning, awaitAsyncHooks, startAsyncHook, type AsyncHookAgent } from './async-hooks';
import { runHookHandler, type HookEventRun } from './hook-handler-run';
import { isHookAgent, runAgentHook, type HookAgentParent } from './agent-hook';
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { PreToolDecision } from './tool-types';

/** What hooks need of an agent (not the whole of its parts: this module stays out of their import circle). */
export type HookedAgent = AsyncHookAgent & HookAgentParent;

/** Runs an event's hooks for one agent side by side (docs/hooks.md); undefined when none applies. */
export async function runHooks(
  agent: HookedAgent,
  event: HookEvent,
  name: string | undefined,
  fields: Record<string, unknown>,
): Promise<CombinedVerdict | undefined> {
  const { input, state } = agent;
  const isSubagent = input.parentAgentId !== undefined;
  const hooks = hookCommands(agent, event, name);
  if (hooks.length === 0) return undefined;
  markOnceRan(agent, hooks);
  const payload = {
    session_id: input.rootAgentId,
    cwd: state.cwd,
    // A PermissionRequest hook's setMode holds from then on (docs/hooks.md, "PermissionRequest").
    permission_mode: state.permissions.mode,
    hook_event_name: event,
    ...(isSubagent ? { agent_id: input.agentId, agent_type: input.agentType } : {}),
    ...fields,
  };
  const run: HookEventRun = { event, payload, summary: `hook ${event}${name ? ` ${name}` : ''}` };
  const verdicts = await Promise.all(
    hooks.map(async (hook): Promise<HookVerdict | undefined> => {
      if (hook.type === 'command' && hook.async) {
        startAsyncHook(agent, hook, run);
        return undefined;
      }
      if (hook.type === 'agent') return runAgentHook(agent, hook, run);
      return runHookHandler(agent, hook, run);
    }),
  );
  const combined = combineVerdicts(verdicts.filter((verdict): verdict is HookVerdict => verdict !== undefined));
  for (const notice of combined.notices) {
    state.hooks.recordNotice(`${event}: ${notice}`);
    log.warn(`${input.agentId}: ${event} hook: ${notice}`);
  }
  return combined;
}

/** The hook handlers an event runs for this agent (`name`: the tool or agent type its matchers select; none: any); a `once` handler that ran is gone. */
function hookCommands(
  { input, state }: Pick<HookedAgent, 'input' | 'state'>,
  event: HookEvent,
  name: string | undefined,
) {
  // An agent hook's own agent runs no hooks: no hook checks a hook, and none recurses.
  if (isHookAgent(input)) return [];
  return hooksFor(
    // startAgent's hooks (a Claude Agent SDK program's) count as settings hooks, and a settings re-read keeps them.
    agentHooks(
      mergeHooks(state.settings?.hooks, input.sdkHooks),
      input.definitionHooks,
      input.parentAgentId !== undefined,
    ),
    event,
    name,
  ).filter((hook) => !hook.once || !state.hooks.ranOnce(hookIdentity(hook)));
}

// The record is the agent's state (carried across continue-as-new): `once` holds for the session, not one run.
function markOnceRan({ state }: Pick<HookedAgent, 'state'>, hooks: readonly HookHandler[]): void {
  for (const hook of hooks) if (hook.once) state.hooks.markRanOnce(hookIdentity(hook));
}

/** Whether an event's hooks can matter, decided synchronously. */
export function hooksMayRun(agent: Pick<HookedAgent, 'input' | 'state'>, event: HookEvent, name?: string): boolean {
  return hookCommands(agent, event, name).length > 0;
}

/** PreToolUse for one call. */
export async function beforeTool(
  agent: HookedAgent,
  call: ToolUseBlock,
  refusal: (reason: string) => ToolOutcome,
): Promise<PreToolDecision> {
  const verdict = await runHooks(agent, 'PreToolUse', call.name, {
    tool_name: call.name,
    tool_input: call.input,
    tool_use_id: call.id,
  });
  if (!verdict) return { type: 'go' };
  if (verdict.stop !== undefined) agent.state.hooks.noteStop(verdict.stop);
  if (verdict.permission === 'deny')
    return { type: 'refuse', outcome: refusal(verdict.reason ?? 'a PreToolUse hook denied this call') };
  return {
    type: 'go',
    ...(verdict.permission !== undefined ? { permission: verdict.permission } : {}),
    ...(verdict.additionalContext ? { context: verdict.additionalContext } : {}),
    ...(verdict.updatedInput ? { updatedInput: verdict.updatedInput } : {}),
  };
}

/** PostToolUse for a call that succeeded: what its hooks say is added after the result the model sees. */
export async function afterTool(agent: HookedAgent, call: ToolUseBlock, outcome: ToolOutcome): Promise<ToolOutcome> {
  if (outcome.isError) return outcome;
  const verdict = await runHooks(agent, 'PostToolUse', call.name, {
    tool_name: call.name,
    tool_input: call.input,
    tool_response: outcome.content,
    tool_use_id: call.id,
  });
  if (!verdict) return outcome;
  if (verdict.stop !== undefined) agent.state.hooks.noteStop(verdict.stop);
  const notes = [
    verdict.blocked && verdict.reason ? `PostToolUse hook feedback:\n${verdict.reason}` : undefined,
    verdict.additionalContext,
  ].filter((text): text is string => !!text);
  return notes.length === 0 ? outcome : appendText(outcome, notes.join('\n\n'));
}

/** A tool outcome with text added after it (in its text, or as one more block of rich content). */
export function appendText(outcome: ToolOutcome, text: string): ToolOutcome {
  if (outcome.blocks?.length) return { ...outcome, blocks: [...outcome.blocks, { type: 'text', text }] };
  return { ...outcome, content: outcome.content ? `${outcome.content}\n\n${text}` : text };
}

/** Whether the Stop hooks keep the agent going (at most {@link hookLimits.maxStopContinuations} times in a row). */
export function stopHooksKeepGoing(agent: HookedAgent, finalText: string): Promise<boolean> | false {
  const { input, state } = agent;
  const isSubagent = input.parentAgentId !== undefined;
  const event: HookEvent = isSubagent ? 'SubagentStop' : 'Stop';
  const name = isSubagent ? input.agentType : undefined;
  // Async hooks still running finish before the agent does: what they say is delivered as its next turn.
  if (asyncHooksRunning(agent) > 0)
    return (async () => {
      await awaitAsyncHooks(agent);
      const next = stopHooksKeepGoing(agent, finalText);
      return next !== false && (await next);
    })();
  if (!hooksMayRun(agent, event, name)) {
    // No hook to run: what running none would leave, without awaiting.
    if (!state.hooks.clearStop()) state.hooks.resetStopContinuations();
    return false;
  }
  return runStopHooks(agent, event, name, finalText);
}

async function runStopHooks(
  agent: HookedAgent,
  event: HookEvent,
  name: string | undefined,
  finalText: string,
): Promise<boolean> {
  const { state } = agent;
  // Stopped by a hook's `continue: false`: no Stop hook runs; a later message starts afresh.
  if (state.hooks.clearStop()) return false;
  const verdict = await runHooks(agent, event, name, {
    stop_hook_active: state.hooks.stopContinuations > 0,
    last_assistant_message: finalText,
  });
  if (
    !verdict?.blocked ||
    verdict.stop !== undefined ||
    state.hooks.stopContinuations >= hookLimits.maxStopContinuations
  ) {
    if (verdict?.blocked && state.hooks.stopContinuations >= hookLimits.maxStopContinuations) {
      state.hooks.recordNotice(
        `${event}: a hook kept the agent going ${hookLimits.maxStopContinuations} times in a row; the agent finished anyway`,
      );
    }
    state.hooks.resetStopContinuations();
    return false;
  }
  state.hooks.countStopContinuation();
  state.append({
    role: 'user',
    content: [{ type: 'text', text: `${event} hook feedback:\n${verdict.reason ?? 'keep working'}` }],
  });
  return true;
}

/** SubagentStart, for a subagent's first start: the context its hooks add to its first message. */
export async function subagentStartContext(agent: HookedAgent): Promise<string | undefined> {
  const { input } = agent;
  if (input.parentAgentId === undefined) return undefined;
  const verdict = await runHooks(agent, 'SubagentStart', input.agentType, {});
  return verdict?.additionalContext;
}
