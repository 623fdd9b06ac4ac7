import { condition, uuid4 } from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput } from '../../shared/agents/agent';
import { hookLabel, hookTimeoutMs, type AgentHook } from '../../shared/policy/hook-handlers';
import { interpretPromptAnswer, promptHookInstructions, promptHookText } from '../../shared/policy/hook-answers';
import type { HookVerdict } from '../../shared/policy/hook-outcome';
import type { HookEvent } from '../../shared/policy/hooks';
import type { HookEventRun } from './hook-handler-run';

/** Tool-use ids of the Agent calls that start agent hooks: an agent started under one runs no hooks itself. */
export const hookAgentToolUseIdPrefix = 'hook-agent-';

/** The read-only agent type an agent hook runs as (Read, Grep, Glob and read-only Bash). */
export const hookAgentType = 'Explore';

/**
 * What an agent hook needs of the hooked agent: its Agent tool and children (structural: no import of the tree's
 * modules). Not optional: every event's call site passes the agent's parts, so no event silently loses its agent hooks.
 */
export interface HookAgentParent {
  readonly input: AgentWorkflowInput;
  readonly agentTool: {
    startForScript(
      toolUseId: string,
      request: { description: string; prompt: string; subagent_type?: string; model?: string },
      extra: { outputSchema?: Record<string, unknown> },
    ): Promise<{ ok: true; agentId: string } | { ok: false; error: string }>;
  };
  readonly children: {
    find(target: string): { readonly result?: AgentResult } | undefined;
    stop(target: string, by: string, reason: string): Promise<unknown>;
  };
}

/** Events fired once the hooked agent has ended (its children stopped, its result written): no child may start then. */
const afterTheEnd: ReadonlySet<HookEvent> = new Set<HookEvent>(['StopFailure', 'WorktreeRemove', 'SessionEnd']);

/** Why an agent hook cannot run at this event (the agent has ended), or undefined: it runs. */
export function agentHookRefusal(event: HookEvent): string | undefined {
  if (!afterTheEnd.has(event)) return undefined;
  return `agent hooks cannot run at ${event}: the agent has ended and starts no child there; skipped (use a command or http hook)`;
}

/** Whether this agent was started by an agent hook (its own hooks do not run: no hook checks a hook). */
export function isHookAgent(input: Pick<AgentWorkflowInput, 'parentToolUseId'>): boolean {
  return input.parentToolUseId?.startsWith(hookAgentToolUseIdPrefix) === true;
}

const answerSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'true when the condition holds' },
    reason: { type: 'string', description: 'when not ok: what is wrong, said to the agent' },
  },
  required: ['ok'],
  additionalProperties: false,
};

/**
 * Runs an agent hook as a read-only child of the hooked agent (counted by the tree's limits and budget like any
 * child); its StructuredOutput `{ok, reason}` is read as a prompt hook's answer. Never throws but for cancellation.
 */
export async function runAgentHook(parent: HookAgentParent, hook: AgentHook, run: HookEventRun): Promise<HookVerdict> {
  const label = hookLabel(hook);
  const failed = (notice: string): HookVerdict => ({ command: label, kind: 'error', notice });
  const { agentTool, children } = parent;
  const refusal = agentHookRefusal(run.event);
  if (refusal) return failed(refusal);
  const prompt = `${promptHookText(hook.prompt, run.payload)}\n\n${promptHookInstructions} Look with your tools as needed, then submit your answer with the StructuredOutput tool.`;
  const started = await agentTool.startForScript(
    `${hookAgentToolUseIdPrefix}${uuid4()}`,
    {
      description: hook.statusMessage?.trim() || `${run.event} agent hook`,
      prompt,
      subagent_type: hookAgentType,
      ...(hook.model ? { model: hook.model } : {}),
    },
    { outputSchema: answerSchema },
  );
  if (!started.ok) return failed(`the hook's agent could not start: ${started.error}`);
  const timeoutMs = hookTimeoutMs(hook);
  const ended = await condition(() => children.find(started.agentId)?.result !== undefined, timeoutMs);
  if (!ended) {
    await children.stop(started.agentId, 'hook', `the agent hook took more than ${timeoutMs / 1000} s`);
    return failed(`the hook's agent ${started.agentId} did not answer within ${timeoutMs / 1000} s and was stopped`);
  }
  const result = children.find(started.agentId)!.result!;
  if (result.status !== 'completed' || result.structured === undefined)
    return failed(
      `the hook's agent ${started.agentId} ended ${result.status} without an answer${result.error ? `: ${result.error.slice(0, 300)}` : ''}`,
    );
  return interpretPromptAnswer(run.event, label, JSON.stringify(result.structured));
}
