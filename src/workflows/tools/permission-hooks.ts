// PermissionRequest, PermissionDenied, Notification around an approval, PreToolUse's `defer`, and PostToolUseFailure (docs/hooks.md).
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import { fireHooks, notify } from './hook-events';
import { appendText, hooksMayRun, type HookedAgent } from './hooks';
import { modeCeiling, type PermissionUpdate } from '../../shared/policy/permission-updates';

/** The model's text for a call a PermissionRequest hook denied. */
const deniedByHook = (call: ToolUseBlock, message: string | undefined) => ({
  isError: true,
  content: `Permission denied by a PermissionRequest hook${message ? `: ${message}` : ''}. Do not retry ${call.name} with the same input; adjust your approach.`,
});

/** Whether hooks run around asking a person about this tool (PermissionRequest, Notification, PermissionDenied). */
export function approvalHooksMayRun(agent: HookedAgent, tool: string): boolean {
  return (
    hooksMayRun(agent, 'PermissionRequest', tool) ||
    hooksMayRun(agent, 'Notification', 'permission_prompt') ||
    hooksMayRun(agent, 'PermissionDenied', tool)
  );
}

/** Asking a person about a call: PermissionRequest hooks may answer first; else Notification hooks hear of the wait. */
export async function askWithHooks(
  agent: HookedAgent,
  call: ToolUseBlock,
  ask: () => Promise<ToolOutcome | undefined>,
  approveWithInput: (input: Record<string, unknown>) => void,
): Promise<ToolOutcome | undefined> {
  if (hooksMayRun(agent, 'PermissionRequest', call.name)) {
    const verdict = await fireHooks(agent, 'PermissionRequest', call.name, {
      tool_name: call.name,
      tool_input: call.input,
      permission_suggestions: [],
    });
    if (verdict?.permission === 'deny') {
      // `interrupt: true` (Claude Code: stop the agent): it ends after this turn, with the hook's reason.
      if (verdict.interrupt)
        agent.state.hooks.noteStop(
          `a PermissionRequest hook interrupted the agent at ${call.name}${verdict.reason ? `: ${verdict.reason}` : ''}`,
        );
      return deniedOutcome(agent, call, deniedByHook(call, verdict.reason));
    }
    if (verdict?.permission === 'allow') {
      if (verdict.updatedInput) approveWithInput(verdict.updatedInput);
      if (verdict.updatedPermissions) grantPermissions(agent, verdict.updatedPermissions);
      return undefined;
    }
  }
  return deniedOutcome(agent, call, await askWaiting(agent, call, ask));
}

/** A PermissionRequest hook's `updatedPermissions` with its allow: session rules and modes up to the agent's ceiling; the rest refused with a notice. */
function grantPermissions(agent: HookedAgent, updates: readonly PermissionUpdate[]): void {
  const { input, state } = agent;
  const ceiling = modeCeiling(input.permissionMode, input.parentAgentId !== undefined);
  for (const notice of state.permissions.apply(updates, ceiling))
    state.hooks.recordNotice(`PermissionRequest: updatedPermissions: ${notice}`);
}

/** PreToolUse answered `defer`: the call waits for a person or a client, as an approval (any permission mode). */
export async function deferredCall(
  agent: HookedAgent,
  call: ToolUseBlock,
  ask: () => Promise<ToolOutcome | undefined>,
): Promise<ToolOutcome | undefined> {
  return deniedOutcome(agent, call, await askWaiting(agent, call, ask));
}

/** The approval's wait, with Notification hooks run beside it. */
async function askWaiting(
  agent: HookedAgent,
  call: ToolUseBlock,
  ask: () => Promise<ToolOutcome | undefined>,
): Promise<ToolOutcome | undefined> {
  const waiting = ask();
  if (!hooksMayRun(agent, 'Notification', 'permission_prompt')) return waiting;
  const [outcome] = await Promise.all([
    waiting,
    notify(
      agent,
      'permission_prompt',
      `${agent.input.agentType} ${agent.input.agentId} needs your permission to use ${call.name}`,
    ),
  ]);
  return outcome;
}

/** PermissionDenied after a denial (mode, rule of the mode, person, hook): `retry: true` tells the model it may try again. A promise only when a hook runs. */
export function deniedOutcome(
  agent: HookedAgent,
  call: ToolUseBlock,
  outcome: ToolOutcome | undefined,
): ToolOutcome | undefined | Promise<ToolOutcome | undefined> {
  if (!outcome || !hooksMayRun(agent, 'PermissionDenied', call.name)) return outcome;
  return permissionDenied(agent, call, outcome);
}

async function permissionDenied(agent: HookedAgent, call: ToolUseBlock, outcome: ToolOutcome): Promise<ToolOutcome> {
  const verdict = await fireHooks(agent, 'PermissionDenied', call.name, {
    tool_name: call.name,
    tool_input: call.input,
    tool_use_id: call.id,
    reason: outcome.content,
  });
  if (!verdict?.retry) return outcome;
  return appendText(outcome, 'A PermissionDenied hook says you may retry this call.');
}

/** PostToolUseFailure for a call that ran and failed: what its hooks add follows the error. */
export async function afterToolFailure(
  agent: HookedAgent,
  call: ToolUseBlock,
  outcome: ToolOutcome,
): Promise<ToolOutcome> {
  const verdict = await fireHooks(agent, 'PostToolUseFailure', call.name, {
    tool_name: call.name,
    tool_input: call.input,
    tool_use_id: call.id,
    error: outcome.content,
    is_interrupt: false,
  });
  if (verdict?.stop !== undefined) agent.state.hooks.noteStop(verdict.stop);
  return verdict?.additionalContext ? appendText(outcome, verdict.additionalContext) : outcome;
}
