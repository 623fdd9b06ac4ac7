import { CancellationScope, CancelledFailure, isCancellation, setWorkflowOptions, sleep } from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput, AwaitingInput } from '../../shared/agents/agent';
import type { StopReason } from '../../shared/model/messages';
import { createAgentParts, type AgentParts } from './agent-parts';
import { Ending } from './ending';
import { installHandlers } from './handlers';
import { prepareRun } from './setup';
import { runStallWatchdog } from './stall-watchdog';
import { runTurn } from './turn';
import { stopHooksKeepGoing } from '../tools/hooks';
import { remindOfStructuredOutput } from '../tools/structured-output';
import { stopsWholeTreeAtBudget } from '../budget/tree-budget';
import { continueAsNewIfDue, waitForInput } from './turn-boundary';
import { continueOntoCurrentVersion, historyDue } from '../context/continue-as-new';
import { agentVersioning, isUpgradeHop } from '../context/version-upgrade';
import { recordStoppedBoundary, recordTurnBoundary } from '../rewind/checkpoint-turn';
import { performRewind } from '../rewind/rewinding';
import { reloadSettingsAtTurn, settingsReloadApplies } from './settings-reload';

/** One agent instance: the query loop (model call → tools → results → repeat) as a workflow (docs/architecture.md). */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  const agent = createAgentParts(input);
  installHandlers(agent);
  // The hop onto the deployment's current version only continues as new (docs/operations.md, "Upgrades").
  if (isUpgradeHop()) return await continueOntoCurrentVersion(agent);
  // Not awaited: it watches beside the loop and returns once the agent has finished.
  void runStallWatchdog(agent);
  const ending = new Ending(agent);
  const run = async () => {
    const cannotRun = await prepareRun(agent);
    if (cannotRun) return await ending.failed(cannotRun);
    return await queryLoop(agent, ending);
  };
  try {
    return await (stopsWholeTreeAtBudget(agent) ? agent.control.runStoppable(run) : run());
  } catch (error) {
    recordStoppedBoundary(agent);
    const failure = await ending.stopped(error);
    // A root that stopped itself at its tree's budget ends with its (cancelled, partial) result.
    if (agent.control.stoppedFromWithin && isCancellation(error)) return agent.progress.current.result!;
    throw failure;
  }
}

// Pinned to the version it started on, on a versioned worker; its hop run moves (docs/operations.md, "Upgrades").
setWorkflowOptions(agentVersioning, agentWorkflow);

/** Model call, tools, results, repeat — until a final answer with nothing more to deliver, or a limit. */
async function queryLoop(agent: AgentParts, ending: Ending): Promise<AgentResult> {
  const { input, state } = agent;
  let lastStopReason: StopReason | undefined;
  // The previous run continued-as-new while waiting for input: this run starts by waiting.
  const awaiting = state.takeAwaiting();
  if (awaiting) {
    if (!(await waitForInput(agent, awaiting))) return awaitingEnded(ending, awaiting);
    if (awaiting.kind === 'final') lastStopReason = awaiting.stopReason;
  }
  for (;;) {
    if (agent.rewinding.requested) {
      const after = await performRewind(agent);
      if (after.type === 'continue') continue;
      // Rewound to a boundary that was the model's answer: the agent waits there as it did then.
      lastStopReason = 'end_turn';
      if (await waitForInput(agent, { kind: 'final', text: after.text, stopReason: 'end_turn' })) continue;
      return ending.completed(after.text, 'end_turn');
    }
    if (state.turn >= input.maxTurns) return ending.maxTurns(lastStopReason);
    // Settings files changed since the last turn apply from this one (docs/hooks.md); a root without settings looks in its model call.
    if (settingsReloadApplies(agent)) await reloadSettingsAtTurn(agent);
    state.beginTurn();
    const outcome = await runTurn(agent);
    await recordTurnBoundary(agent);
    // A rewind interrupted this turn (docs/rewind.md): what the turn ended with no longer counts.
    if (agent.rewinding.requested) continue;
    switch (outcome.type) {
      case 'tools_done':
        if (historyDue(agent)) await continueAsNewIfDue(agent);
        continue;
      case 'final': {
        lastStopReason = outcome.stopReason;
        // An agent with `outputSchema` answers by StructuredOutput only: a text answer gets a reminder.
        const reminding = remindOfStructuredOutput(agent);
        const reminder = reminding instanceof Promise ? await reminding : reminding;
        if (reminder?.type === 'reminded') continue;
        if (reminder) return ending.failed(reminder.error);
        const keepGoing = stopHooksKeepGoing(agent, outcome.text);
        if (keepGoing !== false && (await keepGoing)) continue;
        if (await waitForInput(agent, { kind: 'final', text: outcome.text, stopReason: outcome.stopReason })) continue;
        return ending.completed(outcome.text, outcome.stopReason);
      }
      case 'structured':
        return ending.structured(outcome.value);
      case 'interrupted':
        if (
          input.interactive &&
          (await waitForInput(agent, { kind: 'interrupted', by: outcome.by, reason: outcome.reason }))
        )
          continue;
        return ending.interrupted(outcome);
      case 'truncated':
        return ending.truncated(outcome.text);
      case 'refused':
        return ending.refused(outcome.text);
      case 'failed':
        return ending.failed(outcome.error);
      case 'budget':
        // A cap of its subtree or tree was reached (docs/budgets.md): stopped as by `stop`, or ending with what it has.
        if (outcome.action === 'stop') {
          const notice = { by: 'budget', reason: outcome.reason };
          await awaitBudgetStop(agent, notice);
          agent.control.stopSelf(notice);
          throw new CancelledFailure(`stopped by budget: ${outcome.reason}`);
        }
        return ending.budgetReached(outcome.reason);
    }
  }
}

/** How a run that started waiting (after continue-as-new) ends when nothing more comes. */
function awaitingEnded(ending: Ending, awaiting: AwaitingInput): Promise<AgentResult> {
  return awaiting.kind === 'final'
    ? ending.completed(awaiting.text, awaiting.stopReason)
    : ending.interrupted(awaiting);
}

/** How long a refused agent waits for the root's stop before it stops itself. */
const budgetStopWait = '30 seconds';

/** An agent refused at a cap waits for the root's stop (stopping itself would end it failed); a root stops itself. */
async function awaitBudgetStop(
  agent: Pick<AgentParts, 'control' | 'tree'>,
  notice: { by: string; reason: string },
): Promise<void> {
  if (agent.control.stopFromWithin(notice)) throw new CancelledFailure(`stopped by budget: ${notice.reason}`);
  if (agent.tree.coordinator) return;
  await Promise.race([CancellationScope.current().cancelRequested, sleep(budgetStopWait)]);
}
