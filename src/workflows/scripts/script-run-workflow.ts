import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  setHandler,
  setWorkflowOptions,
} from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput } from '../../shared/agents/agent';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { JournalReplay } from '../../shared/scripts/script-journal';
import { scriptJournalQuery, scriptRunQuery } from '../../shared/scripts/script-queries';
import { scriptLimits, type ScriptRunSpec } from '../../shared/scripts/script-run';
import { stopsWholeTreeAtBudget } from '../budget/tree-budget';
import { pinnedVersioning } from '../context/version-upgrade';
import { createAgentParts, type AgentParts } from '../loop/agent-parts';
import { Ending } from '../loop/ending';
import { installHandlers } from '../loop/handlers';
import { renderAgentStartOn } from '../tools/workspace-activities';
import { AgentSlots } from './agent-slots';
import { forwardSteering } from './run-steering';
import { RunView } from './run-view';
import { RunHost } from './script-host';
import { runScriptInVm } from './vm/script-vm';

/**
 * A script run (docs/workflows.md): an agent of the tree whose loop is a model-written script, run in QuickJS inside this
 * workflow; its `agent()` calls are child agents, and the history is the journal a restart replays.
 */
export async function scriptRunWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  const agent = createAgentParts(input);
  installHandlers(agent);
  const spec = runSpecOf(input);
  const concurrency = concurrencyOf(spec);
  const view = new RunView(input.agentId, spec, concurrency);
  setHandler(scriptRunQuery, () => view.snapshot(agent.state.treeUsage));
  setHandler(scriptJournalQuery, () => view.journal());
  const ending = new Ending(agent);
  const run = async () => {
    await loadSettings(agent);
    // Not awaited: it forwards beside the script until the run ends; a stop ends it too.
    void forwardSteering(agent).catch(() => undefined);
    const host = new RunHost({
      agent,
      spec,
      view,
      slots: new AgentSlots(concurrency),
      replay: new JournalReplay(spec.resumeFrom),
      calls: 0,
      inFlight: 0,
      ended: 0,
    });
    // A stop ends the run at once, whatever the script does with the errors its pending calls then throw.
    const outcome = await Promise.race([
      runScriptInVm(spec.script.body, spec.args, host),
      CancellationScope.current().cancelRequested,
    ]);
    if (!outcome.ok) {
      view.finish('failed', { error: outcome.error });
      return await ending.failed(errorText(ErrorType.ScriptFailed, outcome.error));
    }
    const text = typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value ?? null, null, 2);
    if (text.length > scriptLimits.maxResultBytes) {
      const error = `the script returned ${text.length} characters (limit ${scriptLimits.maxResultBytes}); return less, e.g. a summary.`;
      view.finish('failed', { error });
      return await ending.failed(errorText(ErrorType.ScriptFailed, error));
    }
    view.finish('completed', { result: outcome.value ?? null });
    const result = await ending.completed(text, 'end_turn');
    return { ...result, structured: outcome.value ?? null };
  };
  try {
    return await (stopsWholeTreeAtBudget(agent) ? agent.control.runStoppable(run) : run());
  } catch (error) {
    if (isCancellation(error)) view.finish('cancelled', { error: agent.control.stopNoticeOrDefault().reason });
    const failure = await ending.stopped(error);
    if (agent.control.stoppedFromWithin && isCancellation(error)) return agent.progress.current.result!;
    throw failure;
  }
}

// A run replays its script against its own history: it stays on the version it started on (docs/operations.md, "Upgrades").
setWorkflowOptions(pinnedVersioning, scriptRunWorkflow);

/** The run's spec; a start without one is refused (the workflow fails at once, not its task again and again). */
function runSpecOf(input: AgentWorkflowInput): ScriptRunSpec {
  if (!input.script?.script?.body)
    throw ApplicationFailure.create({
      type: ErrorType.InvalidScript,
      message: errorText(ErrorType.InvalidScript, 'a script run needs input.script with a checked script'),
      nonRetryable: true,
    });
  return input.script;
}

/** Agents at once: the caller's number within 1..ceiling, else the default. */
function concurrencyOf(spec: ScriptRunSpec): number {
  const asked = spec.maxConcurrentAgents;
  if (asked === undefined || !Number.isInteger(asked)) return scriptLimits.defaultConcurrentAgents;
  return Math.min(scriptLimits.maxConcurrentAgentsCeiling, Math.max(1, asked));
}

/** A root run loads the tree's settings (permission rules, hooks) and agent types, as a root agent does at its start. */
async function loadSettings(agent: Pick<AgentParts, 'input' | 'state'>): Promise<void> {
  const { input, state } = agent;
  if (state.systemPrompt) return;
  const local = !input.workspaceWorker;
  const start = await renderAgentStartOn(
    input.workspaceWorker,
    {
      agentId: input.agentId,
      agentType: input.agentType,
      parentAgentId: input.parentAgentId,
      depth: input.depth,
      maxDepth: input.limits.maxDepth,
      model: input.model,
      definitionPrompt: '',
      cwd: state.cwd,
      tools: [],
      permissionMode: input.permissionMode,
      forking: false,
      oneShot: true,
      ...(input.parentAgentId === undefined && !state.settings ? { loadSettings: true } : {}),
    },
    local,
  );
  state.adoptStart(start, local);
}
