import { patched } from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput } from '../shared/agent';
import type { StopReason } from '../shared/messages';
import { createAgentParts, type AgentParts } from './agent-parts';
import { Ending } from './ending';
import { installHandlers } from './handlers';
import { prepareRun } from './setup';
import { runStallWatchdog, stallWatchdogPatch } from './stall-watchdog';
import { runTurn } from './turn';
import { continueAsNewIfDue, waitForInput } from './turn-boundary';

/** One agent instance: the query loop (model call → tools → results → repeat) as a workflow (docs/architecture.md). */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  const agent = createAgentParts(input);
  installHandlers(agent);
  // Not awaited: it watches beside the loop and returns once the agent has finished.
  if (patched(stallWatchdogPatch)) void runStallWatchdog(agent);
  const ending = new Ending(agent);
  try {
    const cannotRun = await prepareRun(agent);
    if (cannotRun) return await ending.failed(cannotRun);
    return await queryLoop(agent, ending);
  } catch (error) {
    throw await ending.stopped(error);
  }
}

/** Model call, tools, results, repeat — until a final answer with nothing more to deliver, or a limit. */
async function queryLoop(agent: AgentParts, ending: Ending): Promise<AgentResult> {
  const { input, state } = agent;
  let lastStopReason: StopReason | undefined;
  for (;;) {
    if (state.turn >= input.maxTurns) return ending.maxTurns(lastStopReason);
    state.turn += 1;
    const outcome = await runTurn(agent);
    switch (outcome.type) {
      case 'tools_done':
        await continueAsNewIfDue(agent);
        continue;
      case 'final':
        lastStopReason = outcome.stopReason;
        if (await waitForInput(agent)) continue;
        return ending.completed(outcome.text, outcome.stopReason);
      case 'interrupted':
        if (input.interactive && (await waitForInput(agent))) continue;
        return ending.interrupted(outcome);
      case 'truncated':
        return ending.truncated(outcome.text);
      case 'refused':
        return ending.refused(outcome.text);
      case 'failed':
        return ending.failed(outcome.error);
    }
  }
}
