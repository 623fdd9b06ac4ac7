import { ruleToolOf } from '../../shared/policy/tool-rules';
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ModelCallResult, PreReadRequest } from '../../shared/model/model-call';
import { fileReadToolNames, isFileReadTool, type FileReadToolName } from '../../shared/policy/tool-classification';
import type { ToolContext } from '../../shared/tools/tools';
import type { PreReadLookup } from './tool-types';
import { classificationOf } from './extra-tools';
import { hooksMayRun, type HookedAgent } from './hooks';

/**
 * File reads that start with the model call (docs/architecture.md, "Reads with the model call"). The
 * model activity runs its answer's leading Read, Glob and Grep calls and returns their outcomes with the
 * answer; the turn takes each such call's result from there instead of running it — for a Read one
 * activation and one local activity fewer, for a Glob or Grep an activity task and a workflow task fewer.
 * Only for the tools where nothing the workflow checks before a call depends on its input, so the call
 * would run whatever it asks: no rule of the agent's definition or of the tree's settings that could
 * refuse it or ask about it, no PreToolUse hook for it, and the files on the worker running the agent (no
 * workspace worker, no tool task queue for it). Every one of them is read-only, so every permission mode
 * allows it: the content the answer carries is content the model would have been given.
 *
 * Whether a call takes a pre-read outcome is decided from the recorded answer, so replay takes the same
 * path; a change to this policy that could send `preRead` where it did not before needs a patch.
 */

/** Which of the agent's file-read tools the model call may run, with the context they run with; undefined when none. */
export function preReadRequest(agent: HookedAgent, pool: readonly string[]): PreReadRequest | undefined {
  const { input, state } = agent;
  if (input.workspaceWorker) return undefined;
  const tools = fileReadToolNames.filter(
    (tool) =>
      pool.includes(tool) &&
      !state.extraTools?.taskQueues?.[tool] &&
      !classificationOf(agent, tool) &&
      !hooksMayRun(agent, 'PreToolUse', tool) &&
      runsUnconditionally(tool, input.toolRules, state.settings?.permissions),
  );
  if (tools.length === 0) return undefined;
  return { context: state.toolContext(input.agentId, input.maxToolResultChars), tools };
}

type RuleLists = Partial<Record<'allow' | 'ask' | 'deny', readonly { tool: string; content: string }[]>>;

/**
 * True when no rule can refuse a call of `tool` or ask about it: the definition's allow and deny rules
 * (an allow rule narrows the tool to matching calls) and the settings' ask and deny rules (a settings
 * allow rule only allows) — any naming the tool itself or the kind of path rule it is checked by
 * (`Read(...)` rules cover Glob and Grep). Pure.
 */
export function runsUnconditionally(tool: FileReadToolName, toolRules: RuleLists | undefined, permissionRules: RuleLists | undefined): boolean {
  const speaking = [toolRules?.allow, toolRules?.deny, permissionRules?.ask, permissionRules?.deny];
  const names = new Set([tool, ruleToolOf(tool)]);
  return speaking.every((rules) => !(rules ?? []).some((rule) => names.has(rule.tool)));
}

/**
 * The turn's lookup of its model call's pre-read outcomes: a call takes one only when it runs as the
 * model asked it (the same call, its input untouched) with the tool context the model call was sent.
 */
export function preReadLookup(
  result: ModelCallResult,
  sent: PreReadRequest | undefined,
  toolUses: readonly ToolUseBlock[],
  onTaken?: (call: ToolUseBlock) => void,
): PreReadLookup | undefined {
  const outcomes = result.preReads;
  if (!outcomes || !sent) return undefined;
  const inputs = new Map<string, unknown>();
  for (const use of toolUses) if (isFileReadTool(use.name) && sent.tools.includes(use.name) && Object.hasOwn(outcomes, use.id)) inputs.set(use.id, use.input);
  return (call, context) => {
    if (inputs.get(call.id) !== call.input || !sameToolContext(context, sent.context)) return undefined;
    onTaken?.(call);
    return outcomes[call.id];
  };
}

/**
 * What a model call's summary adds for the file reads that came back with the call before it: they have
 * no activity or local activity of their own, so the Temporal UI names them here (at most `maxChars`).
 */
export function readWithLastCallSummary(summaries: readonly string[], maxChars = 160): string {
  if (summaries.length === 0) return '';
  const text = ` · read with the last call: ${summaries.join(', ')}`;
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

function sameToolContext(a: ToolContext, b: ToolContext): boolean {
  return a.agentId === b.agentId && a.workspaceRoot === b.workspaceRoot && a.cwd === b.cwd && a.maxResultChars === b.maxResultChars && a.memoryDir === b.memoryDir;
}
