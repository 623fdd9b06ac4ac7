import { ruleToolOf } from '../../shared/policy/tool-rules';
import type { ToolUseBlock } from '../../shared/model/messages';
import type { ModelCallResult, PreReadRequest } from '../../shared/model/model-call';
import { fileReadToolNames, isFileReadTool, type FileReadToolName } from '../../shared/policy/tool-classification';
import type { ToolContext } from '../../shared/tools/tools';
import type { PreReadLookup } from './tool-types';
import { classificationOf } from './extra-tools';
import { hooksMayRun, type HookedAgent } from './hooks';

// Reads, Globs and Greps run by the model call when no check could stop them (docs/architecture.md); replay-safe.

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

/** True when no definition or settings rule can refuse a call of `tool` or ask about it. Pure. */
export function runsUnconditionally(
  tool: FileReadToolName,
  toolRules: RuleLists | undefined,
  permissionRules: RuleLists | undefined,
): boolean {
  const speaking = [toolRules?.allow, toolRules?.deny, permissionRules?.ask, permissionRules?.deny];
  const names = new Set([tool, ruleToolOf(tool)]);
  return speaking.every((rules) => !(rules ?? []).some((rule) => names.has(rule.tool)));
}

/** The turn's lookup of pre-read outcomes: only for a call unchanged, with the tool context sent. */
export function preReadLookup(
  result: ModelCallResult,
  sent: PreReadRequest | undefined,
  toolUses: readonly ToolUseBlock[],
  onTaken?: (call: ToolUseBlock) => void,
): PreReadLookup | undefined {
  const outcomes = result.preReads;
  if (!outcomes || !sent) return undefined;
  const inputs = new Map<string, unknown>();
  for (const use of toolUses)
    if (isFileReadTool(use.name) && sent.tools.includes(use.name) && Object.hasOwn(outcomes, use.id))
      inputs.set(use.id, use.input);
  return (call, context) => {
    if (inputs.get(call.id) !== call.input || !sameToolContext(context, sent.context)) return undefined;
    onTaken?.(call);
    return outcomes[call.id];
  };
}

/** The summary suffix naming the reads that came back with the previous model call (at most `maxChars`). */
export function readWithLastCallSummary(summaries: readonly string[], maxChars = 160): string {
  if (summaries.length === 0) return '';
  const text = ` · read with the last call: ${summaries.join(', ')}`;
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

function sameToolContext(a: ToolContext, b: ToolContext): boolean {
  return (
    a.agentId === b.agentId &&
    a.workspaceRoot === b.workspaceRoot &&
    a.cwd === b.cwd &&
    a.maxResultChars === b.maxResultChars &&
    a.memoryDir === b.memoryDir
  );
}
