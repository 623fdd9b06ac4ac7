import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { ToolUseBlock } from '../../shared/model/messages';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { scriptLimits, type ScriptRunSpec } from '../../shared/scripts/script-run';
import { parseWorkflowToolInput } from '../../shared/tools/workflow-tool-definition';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { AgentState } from '../loop/agent-state';
import { prepareScriptOn } from '../tools/workspace-activities';
import { scriptActivities } from '../runtime/activity-proxies';
import type { AgentTool } from '../tree/spawn';

const error = (content: string): ToolOutcome => ({ content, isError: true });

/**
 * The Workflow tool (docs/workflows.md): checks the script before anything runs, then starts it as a background script run
 * of this agent; the run's result comes back as a task notification.
 */
export async function workflowTool(
  call: ToolUseBlock,
  parts: { input: AgentWorkflowInput; state: AgentState; agentTool: AgentTool },
): Promise<ToolOutcome> {
  const { input, state, agentTool } = parts;
  if (input.scriptRunId)
    return error(errorText(ErrorType.ToolNotAllowed, 'an agent of a script run cannot start another script run.'));
  const parsed = parseWorkflowToolInput(call.input);
  if (!parsed.ok) return error(parsed.error);
  const request = parsed.value;
  const argsBytes = request.args === undefined ? 0 : JSON.stringify(request.args).length;
  if (argsBytes > scriptLimits.maxArgsBytes)
    return error(
      errorText(
        ErrorType.InvalidToolInput,
        `args has ${argsBytes} bytes of JSON (limit ${scriptLimits.maxArgsBytes}).`,
      ),
    );
  const prepared = await prepareScriptOn(input.workspaceWorker, {
    ...(request.script !== undefined ? { script: request.script } : {}),
    ...(request.name !== undefined ? { name: request.name } : {}),
    ...(request.scriptPath !== undefined ? { scriptPath: request.scriptPath } : {}),
    cwd: state.cwd,
    workspaceRoot: state.workspaceRoot,
  });
  if (!prepared.ok) return error(`${prepared.error}\nNothing was started.`);
  const spec: ScriptRunSpec = {
    script: prepared.script,
    ...(request.args !== undefined ? { args: request.args } : {}),
    ...(request.maxConcurrentAgents !== undefined ? { maxConcurrentAgents: request.maxConcurrentAgents } : {}),
    ...(request.budget !== undefined ? { tokenBudget: request.budget } : {}),
  };
  if (request.resumeFromRunId !== undefined) {
    const journal = await scriptActivities.loadScriptJournal({ runId: request.resumeFromRunId });
    if (!journal.ok) return error(`${journal.error}\nNothing was started.`);
    spec.resumeFrom = journal.source;
  }
  const started = await agentTool.startScriptRun(
    call.id,
    spec,
    request.budget !== undefined ? { tokens: request.budget } : undefined,
  );
  if (!started.ok) return error(started.error);
  return { content: launchedText(started.child.agentId, spec), isError: false };
}

/** What the model reads at launch: the run id, what runs, and that the result comes by itself. */
function launchedText(runId: string, spec: ScriptRunSpec): string {
  const { meta, origin, path } = spec.script;
  const phases = meta.phases?.length ? `\nPhases: ${meta.phases.map((phase) => phase.title).join(' → ')}.` : '';
  const resumed = spec.resumeFrom
    ? `\nResuming run ${spec.resumeFrom.runId}: its unchanged prefix of finished agent() calls is reused.`
    : '';
  return (
    `Workflow run ${runId} launched in the background: "${meta.name}" — ${meta.description}${phases}${resumed}\n` +
    `Script: ${origin === 'inline' ? 'inline' : (path ?? origin)}.\n` +
    'Its result arrives as a task notification when the run ends. End your turn now; do not poll, sleep or wait for it.'
  );
}
