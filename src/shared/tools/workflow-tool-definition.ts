// The Workflow tool (docs/workflows.md): its input check and what the model reads. Deterministic data (cache prefix);
// zod is built on first use, as the workflow bundle evaluates it lazily (src/workflows/runtime/zod-on-first-use.cjs).
import { z } from 'zod';
import type { ToolDefinition } from '../model/messages';
import { ErrorType, errorText } from '../protocol/errors';
import { scriptLimits, type WorkflowToolInput } from '../scripts/script-run';
import type { SavedScriptSummary } from '../scripts/script-sources';

export const workflowToolName = 'Workflow';

/** Saved scripts listed in the description, and characters of each one's text there (the rest is cut). */
export const workflowToolListLimits = { maxScripts: 50, maxDescriptionChars: 300, maxWhenToUseChars: 300 } as const;

const fieldDescriptions = {
  script: 'The script source: JavaScript starting with `export const meta = {...}` (see the reference above)',
  name: 'The name of a saved script to run (listed below when there are any)',
  scriptPath: 'Path of a script file to run (relative to your working directory); wins over script and name',
  args: 'Any JSON value, given to the script as the global `args`',
  resumeFromRunId:
    'Run id of a finished or stopped run of this script: its unchanged prefix of completed agent() calls is reused',
  maxConcurrentAgents: `Agents running at once (default ${scriptLimits.defaultConcurrentAgents}, at most ${scriptLimits.maxConcurrentAgentsCeiling})`,
  budget: 'Token total for the run, as the script global `budget.total` (a cap of everything the run starts)',
} as const;

/** The JSON Schema the model sees (equal to the zod schema's; test/unit/workflow-tool-definition.test.ts checks it). */
export const workflowToolInputJsonSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    script: { description: fieldDescriptions.script, type: 'string', minLength: 1 },
    name: { description: fieldDescriptions.name, type: 'string', minLength: 1 },
    scriptPath: { description: fieldDescriptions.scriptPath, type: 'string', minLength: 1 },
    args: { description: fieldDescriptions.args },
    resumeFromRunId: { description: fieldDescriptions.resumeFromRunId, type: 'string', minLength: 1 },
    maxConcurrentAgents: {
      description: fieldDescriptions.maxConcurrentAgents,
      type: 'integer',
      minimum: 1,
      maximum: scriptLimits.maxConcurrentAgentsCeiling,
    },
    budget: { description: fieldDescriptions.budget, type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
  additionalProperties: false,
};

let inputSchema: z.ZodType<WorkflowToolInput> | undefined;

/** The zod schema of the Workflow tool's input, built on first use (at least one of script, name, scriptPath). */
export function workflowToolInputSchema(): z.ZodType<WorkflowToolInput> {
  return (inputSchema ??= z
    .strictObject({
      script: z.string().min(1).optional().describe(fieldDescriptions.script),
      name: z.string().min(1).optional().describe(fieldDescriptions.name),
      scriptPath: z.string().min(1).optional().describe(fieldDescriptions.scriptPath),
      args: z.unknown().optional().describe(fieldDescriptions.args),
      resumeFromRunId: z.string().min(1).optional().describe(fieldDescriptions.resumeFromRunId),
      maxConcurrentAgents: z
        .number()
        .int()
        .min(1)
        .max(scriptLimits.maxConcurrentAgentsCeiling)
        .optional()
        .describe(fieldDescriptions.maxConcurrentAgents),
      budget: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe(fieldDescriptions.budget),
    })
    .refine((input) => input.script !== undefined || input.name !== undefined || input.scriptPath !== undefined, {
      message: 'give one of script (the source), name (a saved script) or scriptPath (a file)',
    }));
}

/** The model's Workflow input, checked; null fields count as left out (models send them). */
export function parseWorkflowToolInput(
  raw: Record<string, unknown>,
): { ok: true; value: WorkflowToolInput } | { ok: false; error: string } {
  const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null));
  const parsed = workflowToolInputSchema().safeParse(present);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) =>
    issue.path.length > 0 ? `"${issue.path.join('.')}": ${issue.message}` : issue.message,
  );
  return {
    ok: false,
    error: errorText(
      ErrorType.InvalidToolInput,
      `Workflow was called with invalid input: ${problems.join('; ')}. Fix the input and call Workflow again.`,
    ),
  };
}

const authoringReference = `Runs an orchestration script in the background: a short JavaScript program that starts many subagents, combines their results and returns one answer. Use it when a task needs more agents than you can coordinate turn by turn (a sweep over many files or folders, independent drafts cross-checked, a multi-stage review). The call returns at once with a run id; the run's result arrives later as a task notification. End your turn after starting it: do not poll, sleep or wait for it.

Give exactly one of script (the source), name (a saved script) or scriptPath (a file; it wins over the others). Syntax and header errors are reported before anything runs.

A script starts with its header, a plain object literal (no variables, calls, spreads or \${} interpolation):
  export const meta = { name: 'review-folders', description: 'Reviews each folder, then checks the findings', whenToUse: 'optional', phases: [{ title: 'Review' }, { title: 'Check' }] };
name: letters, digits, - and _. The body is plain JavaScript (not TypeScript) with top-level await and return; the returned JSON value (or string) is the run's result. No import, import() or require; no file system, network, process or timers: agents do all file, shell and web work.

Script API (globals):
- agent(prompt, opts?) starts a subagent with a complete, self-contained brief and resolves to its final text, or to an object valid against opts.schema (the agent gets ${scriptLimits.schemaAttempts} attempts to submit one, else the call throws). A stopped or failed agent resolves to null (check for it); a refused start (a limit, an unknown type, a spent budget) throws.
- opts: label (name shown in progress views), phase (group it under this phase), agentType (an agent type, default general-purpose), model, effort, isolation: 'worktree' (its own git worktree), schema (a JSON Schema object for a structured result).
- parallel([() => agent(...), ...]) runs thunks concurrently as a barrier; it never rejects: a thunk that throws gives null. Filter the nulls.
- pipeline(items, stage1, stage2, ...) moves each item through the stages on its own, without a barrier between stages; each stage is (value, item, index) => ...; an item whose stage throws ends as null. Prefer it for multi-stage work.
- phase(title) starts a progress group for the agent() calls after it; log(message) (and console.log) writes a progress line.
- budget: { total, spent(), remaining() } in tokens (total is null without a budget); check remaining() before starting more work.
- workflow(name, args?) runs a saved script inline as a step (one level deep: it cannot call workflow() again).
- args: the caller's args value, verbatim.

Limits: ${scriptLimits.defaultConcurrentAgents} agents at once by default (maxConcurrentAgents up to ${scriptLimits.maxConcurrentAgentsCeiling}), ${scriptLimits.maxAgentsPerRun} agent() calls per run, ${scriptLimits.maxListItems} items per parallel/pipeline list (split longer lists), ${scriptLimits.maxScriptBytes / 1024} KiB of script, ${scriptLimits.maxPromptChars} prompt characters, ${scriptLimits.maxResultBytes / 1024} KiB of result JSON. Date.now(), new Date() without arguments and Math.random() throw: they would make the run impossible to resume; pass times or seeds in args.

Resume: resumeFromRunId reruns the script (edited or not) and reuses, in call order, every completed agent() call whose prompt and options (label and phase aside) are unchanged, up to the first call that differs; from there on every call runs live.

Example:
  export const meta = { name: 'folder-review', description: 'Review each folder, verify each finding' };
  phase('Review');
  const reviews = await parallel(args.folders.map((folder) => () =>
    agent('Review ' + folder + ' for bugs. Report each as one line.', { label: folder })));
  phase('Verify');
  const checked = await pipeline(reviews.filter(Boolean), (review) =>
    agent('Check these findings; keep only real bugs:\\n' + review, { schema: { type: 'object', properties: { bugs: { type: 'array', items: { type: 'string' } } }, required: ['bugs'] } }));
  return checked.filter(Boolean).flatMap((result) => result.bugs);`;

/** One saved script as the description lists it. */
export function savedScriptLine(script: SavedScriptSummary): string {
  const cut = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  const description = cut(oneLine(script.description), workflowToolListLimits.maxDescriptionChars);
  const whenToUse =
    script.whenToUse === undefined
      ? ''
      : ` When to use: ${cut(oneLine(script.whenToUse), workflowToolListLimits.maxWhenToUseChars)}`;
  return `- ${script.name}: ${description}${whenToUse}`;
}

/** The Workflow tool's description: the authoring reference, then the saved scripts by name (sorted, so it is stable). */
export function workflowToolDescription(saved: readonly SavedScriptSummary[]): string {
  if (saved.length === 0) return authoringReference;
  const sorted = [...saved].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  const shown = sorted.slice(0, workflowToolListLimits.maxScripts).map(savedScriptLine);
  const more =
    sorted.length > shown.length ? `\n(${sorted.length - shown.length} more saved scripts are not listed.)` : '';
  return `${authoringReference}\n\nSaved scripts (run one with name):\n${shown.join('\n')}${more}`;
}

/** The Workflow tool's model-facing definition, with the saved scripts of the caller's project and user. */
export function workflowToolDefinition(saved: readonly SavedScriptSummary[]): ToolDefinition {
  return {
    name: workflowToolName,
    description: workflowToolDescription(saved),
    input_schema: workflowToolInputJsonSchema,
  };
}

/** The saved scripts as an agent's opening context lists them (the tools block stays the same for every agent). */
export function savedScriptsSection(saved: readonly SavedScriptSummary[]): string | undefined {
  if (saved.length === 0) return undefined;
  const sorted = [...saved].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  const shown = sorted.slice(0, workflowToolListLimits.maxScripts).map(savedScriptLine);
  const more =
    sorted.length > shown.length ? `\n(${sorted.length - shown.length} more saved scripts are not listed.)` : '';
  return `# Saved workflow scripts you can run with the Workflow tool's name\n${shown.join('\n')}${more}`;
}
