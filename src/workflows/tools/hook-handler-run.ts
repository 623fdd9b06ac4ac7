import { isCancellation } from '@temporalio/workflow';
import type { HookRunInput, HookVerdict } from '../../shared/policy/hook-outcome';
import { hookLabel, hookTimeoutMs, type HookHandler } from '../../shared/policy/hook-handlers';
import type { HookEvent } from '../../shared/policy/hooks';
import { promptHookCallBound } from '../../shared/policy/hook-limits';
import { promptHookText } from '../../shared/policy/hook-answers';
import type { TokenUsage } from '../../shared/model/messages';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { AgentState } from '../loop/agent-state';
import type { BudgetLink } from '../budget/budget-link';
import { releaseToolModelCall, reserveToolModelCall } from '../budget/tool-model-budget';
import type { CallReservation } from '../budget/model-budget';
import { runHookOn } from './workspace-activities';

/**
 * What running a hook handler needs of its agent: where it works; its budget and tree count prompt hooks' calls.
 * Not optional: at every event a prompt hook's tokens reach the tree's ledger and usage (docs/budgets.md).
 */
export interface HookRunningAgent {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
  readonly budget: BudgetLink;
  readonly tree: { reportUsage(usage: TokenUsage): Promise<void> };
}

/** One event, as every handler of it sees it. */
export interface HookEventRun {
  event: HookEvent;
  payload: Record<string, unknown>;
  /** The activity's summary when the handler has no `statusMessage`. */
  summary: string;
}

/** The runHook input of one handler (an agent hook is run by the caller, as a subagent). */
function runInput(
  agent: HookRunningAgent,
  hook: Exclude<HookHandler, { type: 'agent' }>,
  run: HookEventRun,
): HookRunInput {
  const { state, input } = agent;
  return {
    event: run.event,
    command: hookLabel(hook),
    timeoutMs: hookTimeoutMs(hook),
    cwd: state.cwd,
    projectDir: state.settings?.projectDir ?? state.workspaceRoot,
    payload: run.payload,
    ...(state.settings?.sandbox ? { sandbox: state.settings.sandbox } : {}),
    ...(hook.type === 'command' ? {} : { handler: hook, agentId: input.agentId }),
    ...(hook.type === 'command' && hook.async ? { async: true } : {}),
  };
}

/** A lost worker or a failed activity is a non-blocking error, as a hook that crashed. */
function didNotRun(hook: HookHandler, error: unknown): HookVerdict {
  return {
    command: hookLabel(hook),
    kind: 'error',
    notice: `the hook did not run to the end: ${(error as Error).message}`,
  };
}

/** Runs one command, http or prompt handler as the runHook activity on the agent's workspace worker; never throws but for cancellation. */
export async function runHookHandler(
  agent: HookRunningAgent,
  hook: Exclude<HookHandler, { type: 'agent' }>,
  run: HookEventRun,
): Promise<HookVerdict> {
  const summary = hook.statusMessage?.trim() || run.summary;
  if (hook.type !== 'prompt') {
    try {
      return (await runHookOn(agent.input.workspaceWorker, runInput(agent, hook, run), summary)).verdict;
    } catch (error) {
      if (isCancellation(error)) throw error;
      return didNotRun(hook, error);
    }
  }
  // A prompt hook's model call is counted in the tree's budget like a tool's own call (docs/budgets.md).
  const bound = promptHookCallBound(promptHookText(hook.prompt, run.payload).length);
  const reservation: CallReservation = await reserveToolModelCall(agent, bound.maxOutputTokens, bound.inputTokens);
  if (reservation.kind === 'refused')
    return {
      command: hookLabel(hook),
      kind: 'error',
      notice: `the prompt hook was not run: its model call needs more room than is left in ${reservation.grant.reason}`,
    };
  try {
    const result = await runHookOn(
      agent.input.workspaceWorker,
      { ...runInput(agent, hook, run), ...(reservation.kind === 'granted' ? { budget: reservation.budget } : {}) },
      summary,
    );
    if (result.usage) {
      agent.state.addUsage(result.usage);
      // A granted reservation was charged by the activity itself.
      if (reservation.kind !== 'granted') await agent.tree.reportUsage(result.usage);
    }
    return result.verdict;
  } catch (error) {
    if (isCancellation(error)) throw error;
    return didNotRun(hook, error);
  } finally {
    await releaseToolModelCall(agent, reservation);
  }
}
