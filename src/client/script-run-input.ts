// A client-started script run's workflow input (docs/workflows.md): the root of its tree, checked before anything starts.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { AgentWorkflowInput, PermissionMode } from '../shared/agents/agent';
import { buildRootInput } from '../shared/agents/agent-input';
import { defaultModel, resolveModelAlias } from '../shared/agents/models';
import { boardNameProblem } from '../shared/board/board';
import { defaultAgentLimits, type AgentLimits } from '../shared/protocol/limits';
import {
  scriptLimits,
  scriptRunAgentType,
  type CheckedScript,
  type ScriptResumeSource,
  type ScriptRunSpec,
} from '../shared/scripts/script-run';
import { workspaceWorker } from '../shared/workspace/workspace-routing';
import { budgetLimitsProblem, existingDirectory, stallLimitsProblem } from './root-input';

/** Options of `runWorkflow`. */
export interface RunWorkflowOptions {
  /** Workflow ID of the run (default `wf-<random>`); its agents are `<id>.<n>`. */
  workflowId?: string;
  /** Working directory and workspace root of the run's agents (default process.cwd()). */
  cwd?: string;
  /** Model of agents whose `agent()` call names none (id or alias; default claude-sonnet-5). */
  model?: string;
  /** Display name of the run (default the script's `meta.name`). */
  name?: string;
  /** Agents running at once, 1..64 (default 16). */
  maxConcurrentAgents?: number;
  /** Token total of the script's `budget`, also a cap of the whole tree. */
  tokenBudget?: number;
  /** Tree limits, budget caps included (`limits.budget`), as startAgent's. */
  limits?: Partial<AgentLimits>;
  permissionMode?: PermissionMode;
  /** A finished run whose unchanged prefix of finished `agent()` calls this run reuses. */
  resumeFromRunId?: string;
  /** Task queue of the run (default the client's). */
  taskQueue?: string;
  /** A named task board shared with other trees (docs/board.md). */
  taskBoard?: string;
  /** The SUBAGENTS_WORKER_ID holding `cwd` when workers share no filesystem (docs/operations.md). */
  worker?: string;
  workerWaitMs?: number;
  /** Overrides ~ when looking for saved scripts (tests). */
  homeDir?: string;
}

/** The caller refused the run's options or its resume source; the message says what to fix. */
export class ScriptRunRefused extends Error {
  override readonly name = 'ScriptRunRefused';
}

/** What is wrong with a run's `args` (not JSON, or over scriptLimits.maxArgsBytes), or undefined. */
export function scriptArgsProblem(args: unknown): string | undefined {
  if (args === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(args);
  } catch (error) {
    return `args must be JSON data: ${(error as Error).message}.`;
  }
  if (json === undefined) return 'args must be JSON data (a function or symbol is not).';
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > scriptLimits.maxArgsBytes)
    return `args are ${bytes} bytes of JSON; a run takes at most ${scriptLimits.maxArgsBytes}. Pass a file path or less data.`;
  return undefined;
}

/** What is wrong with the run's numbers (concurrency, token budget), or undefined. */
export function scriptRunOptionsProblem(
  options: Pick<RunWorkflowOptions, 'maxConcurrentAgents' | 'tokenBudget' | 'workflowId'>,
): string | undefined {
  const { maxConcurrentAgents, tokenBudget, workflowId } = options;
  // Its agents' ids are `<runId>.<n>`: a dot in the run's own id would read as a place in a tree.
  if (workflowId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_:-]{0,199}$/.test(workflowId))
    return `workflowId must be letters, digits, -, _ and : (no dots, at most 200), starting with a letter or digit (got ${JSON.stringify(workflowId.slice(0, 60))}).`;
  const ceiling = scriptLimits.maxConcurrentAgentsCeiling;
  if (
    maxConcurrentAgents !== undefined &&
    (!Number.isInteger(maxConcurrentAgents) || maxConcurrentAgents < 1 || maxConcurrentAgents > ceiling)
  )
    return `maxConcurrentAgents must be a whole number from 1 to ${ceiling} (got ${JSON.stringify(maxConcurrentAgents)}).`;
  if (tokenBudget !== undefined && (!Number.isSafeInteger(tokenBudget) || tokenBudget <= 0))
    return `tokenBudget must be a positive whole number of tokens (got ${JSON.stringify(tokenBudget)}).`;
  return undefined;
}

/** The `scriptRunWorkflow` input of a root run: an agent input of type `workflow` with no tools and the script's spec. */
export async function scriptRunInput(
  script: CheckedScript,
  args: unknown,
  options: RunWorkflowOptions,
  resumeFrom: ScriptResumeSource | undefined,
  taskQueue: string,
): Promise<AgentWorkflowInput> {
  const argsProblem = scriptArgsProblem(args);
  if (argsProblem) throw new ScriptRunRefused(argsProblem);
  const optionsProblem = scriptRunOptionsProblem(options);
  if (optionsProblem) throw new ScriptRunRefused(optionsProblem);
  if (options.workerWaitMs !== undefined && options.worker === undefined)
    throw new ScriptRunRefused('workerWaitMs needs worker: it is how long calls wait for that worker.');
  const limits = { ...defaultAgentLimits, ...options.limits };
  const limitsProblem = stallLimitsProblem(limits) ?? budgetLimitsProblem({ ...options.limits });
  if (limitsProblem) throw new ScriptRunRefused(limitsProblem);
  const boardProblem = options.taskBoard === undefined ? undefined : boardNameProblem(options.taskBoard);
  if (boardProblem) throw new ScriptRunRefused(`Bad task board: ${boardProblem}`);
  const cwd = await existingDirectory(path.resolve(options.cwd ?? process.cwd()), 'The working directory');
  const spec: ScriptRunSpec = {
    script,
    // The run sees the JSON of args, as a model's tool call would give it.
    ...(args !== undefined ? { args: JSON.parse(JSON.stringify(args)) as unknown } : {}),
    ...(options.maxConcurrentAgents !== undefined ? { maxConcurrentAgents: options.maxConcurrentAgents } : {}),
    ...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}),
    ...(resumeFrom ? { resumeFrom } : {}),
  };
  const placement =
    options.worker === undefined ? undefined : workspaceWorker(taskQueue, options.worker, options.workerWaitMs);
  const input = buildRootInput({
    agentId: options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`,
    agentType: scriptRunAgentType,
    name: options.name ?? script.meta.name,
    description: script.meta.description,
    prompt: `Run the workflow script "${script.meta.name}"${script.path ? ` (${script.path})` : ''}.`,
    model: resolveModelAlias(options.model ?? defaultModel),
    definitionPrompt: '',
    tools: [],
    cwd,
    workspaceRoot: cwd,
    permissionMode: options.permissionMode ?? 'default',
    maxTurns: limits.defaultMaxTurns,
    limits,
    // The run's token budget caps the whole tree in its ledger too (docs/budgets.md).
    ...(options.tokenBudget !== undefined ? { budgetCaps: { tokens: options.tokenBudget } } : {}),
    ...(options.taskBoard ? { taskBoard: options.taskBoard } : {}),
    ...(placement ? { workspaceWorker: placement } : {}),
  });
  return { ...input, script: spec };
}
