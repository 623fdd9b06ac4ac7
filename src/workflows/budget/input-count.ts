import { ActivityCancellationType, isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../runtime/activity-proxies';
import type { AgentState } from '../loop/agent-state';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import { estimateNextRequestTokens } from '../context/context-meter';
import type { BudgetLink } from './budget-link';

/** One attempt, on the worker running the task: a count that fails or is slow gives way to the estimate. */
const countActivities = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
  cancellationType: ActivityCancellationType.TRY_CANCEL,
});

/**
 * For a budgeted call with no measured overhead yet (the agent's first call): its input tokens by the
 * worker's `count_tokens` of the request, as a local activity (its result is recorded, so replay reserves
 * the same), or the estimate when there is no count. Undefined when the call reserves the corrected
 * estimate, so that path awaits nothing.
 */
export function countedInputTokens(agent: {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
  readonly budget: BudgetLink;
}): Promise<number> | undefined {
  if (agent.state.contextOverheadTokens !== undefined) return undefined;
  return countRequest(agent);
}

async function countRequest({
  input,
  state,
}: {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
}): Promise<number> {
  try {
    const result = await countActivities.countRequestTokens({
      agentId: input.agentId,
      model: input.model,
      systemPrompt: state.systemPrompt,
      tools: input.tools,
      ...(state.extraTools
        ? { extraTools: state.extraTools.descriptors.map((descriptor) => descriptor.definition) }
        : {}),
      messages: [...state.messages],
      ...(input.thinking ? { thinking: input.thinking } : {}),
    });
    if ('inputTokens' in result) return result.inputTokens;
  } catch (error) {
    // A local activity that timed out: the call goes on with the estimate.
    if (isCancellation(error)) throw error;
  }
  return estimateNextRequestTokens(input, state);
}
