import { ActivityFailure, ApplicationFailure, TimeoutFailure, type ActivityOptions } from '@temporalio/workflow';
import type { SdkAgents } from '../../shared/agents/sdk-agents';
import { TimeoutType } from '@temporalio/common';
import type { SpawnContext } from '../../shared/agents/agent-definition';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';
import type { WorkspaceToolName } from '../../shared/policy/tool-classification';
import type { WorkspaceWorker } from '../../shared/workspace/workspace-routing';
import type { ResolveAgentCwdInput, ResolveAgentCwdResult } from '../../shared/workspace/working-directory';
import type {
  AdoptHookWorktreeInput,
  CreateWorktreeInput,
  FinishWorktreeInput,
  WorktreeInfo,
  WorktreeOutcome,
} from '../../shared/workspace/worktree';
import { toolQueueWaitMs } from '../../shared/tools/custom-tools';
import { abortLocallyWhenCancelled } from '../runtime/local-abort';
import { readLocally } from './read-batch';
import { toolWorkerGoneText } from './tool-queue-text';
import {
  checkpointActivities,
  checkpointOptions,
  localCheckpointActivities,
  localCheckpointOptions,
  fileToolActivities,
  fileToolOptions,
  hookActivities,
  hookOptions,
  localSetupActivities,
  localSetupOptions,
  scriptActivities,
  scriptOptions,
  setupActivities,
  setupOptions,
  shellToolActivities,
  shellToolOptions,
} from '../runtime/activity-proxies';
import type {
  CheckpointInput,
  CheckpointResult,
  FileChange,
  RestoreInput,
  RestoreResult,
  TurnCheckpoint,
} from '../../shared/workspace/checkpoints';
import type { HookRunInput, HookRunResult } from '../../shared/policy/hook-outcome';
import type { PrepareScriptInput, PrepareScriptResult } from '../../shared/scripts/script-sources';

// Activities that touch an agent's files, on its workspace worker when it has one (docs/operations.md).

/** The options of one workspace activity call: routed to the agent's workspace worker, if it has one. */
export function routedOptions(options: ActivityOptions, worker: WorkspaceWorker | undefined): ActivityOptions {
  if (!worker) return options;
  return { ...options, taskQueue: worker.taskQueue, scheduleToStartTimeout: worker.waitMs };
}

/** True for the failure of a call no worker picked up in time (schedule-to-start timeouts are never retried). */
export function isWorkerWaitTimeout(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === TimeoutType.SCHEDULE_TO_START
  );
}

/** What the agent (or its parent) is told when its workspace worker does not answer: which worker, and how to recover. */
export function workerGoneText(worker: WorkspaceWorker, what: string): string {
  return errorText(
    ErrorType.WorkspaceWorkerUnavailable,
    `${what} did not run: no worker "${worker.id}" (task queue ${worker.taskQueue}), which holds this agent's files, ` +
      `took it within ${Math.round(worker.waitMs / 1000)} s. Start that worker again (same SUBAGENTS_WORKER_ID on the machine ` +
      'with the files) and ask again; the files are only on that machine.',
  );
}

/** Runs a workspace activity; a wait timeout becomes WorkspaceWorkerUnavailable. Unrouted calls keep their order. */
function onWorkspace<T>(worker: WorkspaceWorker | undefined, what: string, run: () => Promise<T>): Promise<T> {
  return worker ? translateWait(worker, what, run) : run();
}

async function translateWait<T>(worker: WorkspaceWorker, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isWorkerWaitTimeout(error)) {
      throw ApplicationFailure.create({
        type: ErrorType.WorkspaceWorkerUnavailable,
        message: workerGoneText(worker, what),
        nonRetryable: true,
      });
    }
    throw error;
  }
}

/** One tool call on the worker holding the files, or on the tool's own task queue (docs/tools.md). */
export function runWorkspaceTool(
  name: WorkspaceToolName,
  input: ToolCallInput,
  summary: string,
  worker: WorkspaceWorker | undefined,
  toolQueue?: string,
): Promise<ToolCallResult> {
  if (toolQueue) return onToolQueue(name, toolQueue, input, summary);
  // Read on the worker running this workflow task when every worker sees the files: no activity task, no extra workflow task.
  if (name === 'Read' && !worker) return readLocally(input, summary);
  const ended = worker ? undefined : abortLocallyWhenCancelled();
  const call = onWorkspace(worker, name, () =>
    name === 'Bash'
      ? shellToolActivities.Bash.executeWithOptions({ ...routedOptions(shellToolOptions, worker), summary }, [input])
      : fileToolActivities[name].executeWithOptions({ ...routedOptions(fileToolOptions, worker), summary }, [input]),
  );
  if (ended) call.then(ended, ended);
  return call;
}

async function onToolQueue(
  name: WorkspaceToolName,
  taskQueue: string,
  input: ToolCallInput,
  summary: string,
): Promise<ToolCallResult> {
  const routed = { taskQueue, scheduleToStartTimeout: toolQueueWaitMs, summary };
  try {
    return await (name === 'Bash'
      ? shellToolActivities.Bash.executeWithOptions({ ...shellToolOptions, ...routed }, [input])
      : fileToolActivities[name].executeWithOptions({ ...fileToolOptions, ...routed }, [input]));
  } catch (error) {
    // Nothing ran: the agent is told which queue has no worker (a failure, so run-tools reports it as the tool's error).
    if (isWorkerWaitTimeout(error))
      throw ApplicationFailure.create({
        type: ErrorType.ToolWorkerUnavailable,
        message: toolWorkerGoneText(name, taskQueue),
        nonRetryable: true,
      });
    throw error;
  }
}

export function createWorktreeOn(
  worker: WorkspaceWorker | undefined,
  input: CreateWorktreeInput,
): Promise<WorktreeInfo> {
  return onWorkspace(worker, 'Creating the git worktree', () =>
    setupActivities.createWorktree.executeWithOptions(
      { ...routedOptions(setupOptions, worker), summary: 'create git worktree' },
      [input],
    ),
  );
}

/** The directory a WorktreeCreate hook printed, checked on the workspace worker (docs/worktrees.md). */
export function adoptHookWorktreeOn(
  worker: WorkspaceWorker | undefined,
  input: AdoptHookWorktreeInput,
): Promise<WorktreeInfo> {
  return onWorkspace(worker, "Checking the WorktreeCreate hook's directory", () =>
    setupActivities.adoptHookWorktree.executeWithOptions(
      { ...routedOptions(setupOptions, worker), summary: "check the WorktreeCreate hook's directory" },
      [input],
    ),
  );
}

export function finishWorktreeOn(
  worker: WorkspaceWorker | undefined,
  input: FinishWorktreeInput,
): Promise<WorktreeOutcome> {
  return onWorkspace(worker, 'Cleaning up the git worktree', () =>
    setupActivities.finishWorktree.executeWithOptions(
      { ...routedOptions(setupOptions, worker), summary: 'clean up git worktree' },
      [input],
    ),
  );
}

export function renderAgentStartOn(
  worker: WorkspaceWorker | undefined,
  input: Parameters<typeof setupActivities.renderAgentStart>[0],
  local = false,
): ReturnType<typeof setupActivities.renderAgentStart> {
  const summary = 'render system prompt and agent context';
  // Local: on the worker running this workflow task, inside it (only when no workspace worker holds the files).
  if (local && !worker)
    return localSetupActivities.renderAgentStart.executeWithOptions({ ...localSetupOptions, summary }, [input]);
  return onWorkspace(worker, 'Rendering the system prompt and agent context', () =>
    setupActivities.renderAgentStart.executeWithOptions({ ...routedOptions(setupOptions, worker), summary }, [input]),
  );
}

/** Checks the cwd an Agent call asks for, on the worker holding the parent's files. */
export function resolveAgentCwdOn(
  worker: WorkspaceWorker | undefined,
  input: ResolveAgentCwdInput,
): Promise<ResolveAgentCwdResult> {
  return onWorkspace(worker, `Checking cwd ${input.requested}`, () =>
    setupActivities.resolveAgentCwd.executeWithOptions(
      { ...routedOptions(setupOptions, worker), summary: `check cwd ${input.requested}`.slice(0, 120) },
      [input],
    ),
  );
}

export function loadSpawnContextOn(
  worker: WorkspaceWorker | undefined,
  cwd: string,
  sdkAgents?: SdkAgents,
): Promise<SpawnContext> {
  return onWorkspace(worker, 'Loading agent definitions', () =>
    setupActivities.loadSpawnContext.executeWithOptions(
      { ...routedOptions(setupOptions, worker), summary: 'load agent definitions' },
      [{ cwd, ...(sdkAgents ? { sdkAgents } : {}) }],
    ),
  );
}

/** Reads and checks a script (inline, saved by name, or a file) on the worker holding the agent's files (docs/workflows.md). */
export function prepareScriptOn(
  worker: WorkspaceWorker | undefined,
  input: PrepareScriptInput,
): Promise<PrepareScriptResult> {
  const what = input.scriptPath ?? input.name ?? 'inline script';
  return onWorkspace(worker, `Checking script ${what}`, () =>
    scriptActivities.prepareScript.executeWithOptions(
      { ...routedOptions(scriptOptions, worker), summary: `check script ${what}`.slice(0, 120) },
      [input],
    ),
  );
}

/** One hook command (docs/hooks.md) on the worker holding the agent's files; its activity may run 30 s past the hook's own timeout. */
export function runHookOn(
  worker: WorkspaceWorker | undefined,
  input: HookRunInput,
  summary: string,
): Promise<HookRunResult> {
  const options = {
    ...routedOptions(hookOptions, worker),
    startToCloseTimeout: input.timeoutMs + 30_000,
    summary: summary.slice(0, 120),
  };
  return onWorkspace(worker, `The ${input.event} hook`, () =>
    hookActivities.runHook.executeWithOptions(options, [input]),
  );
}

/** Records the workspace at a turn boundary (docs/rewind.md); local when every worker sees the files. */
export function checkpointOn(worker: WorkspaceWorker | undefined, input: CheckpointInput): Promise<CheckpointResult> {
  const summary = `checkpoint files at turn ${input.turn}`;
  if (!worker)
    return localCheckpointActivities.checkpointWorkspace.executeWithOptions({ ...localCheckpointOptions, summary }, [
      input,
    ]);
  return onWorkspace(worker, 'Checkpointing the workspace', () =>
    checkpointActivities.checkpointWorkspace.executeWithOptions(
      { ...routedOptions(checkpointOptions, worker), summary },
      [input],
    ),
  );
}

/** Returns the workspace to a checkpoint, refused when files changed since the agent's latest one. */
export function restoreCheckpointOn(worker: WorkspaceWorker | undefined, input: RestoreInput): Promise<RestoreResult> {
  return onWorkspace(worker, 'Restoring the workspace', () =>
    checkpointActivities.restoreCheckpoint.executeWithOptions(
      { ...routedOptions(checkpointOptions, worker), summary: `restore files of turn ${input.checkpoint.turn}` },
      [input],
    ),
  );
}

/** The files that differ now from a checkpoint (someone else's changes, when it is the agent's latest). */
export function changesSinceOn(
  worker: WorkspaceWorker | undefined,
  input: { checkpoint: TurnCheckpoint; root?: string },
): Promise<FileChange[]> {
  return onWorkspace(worker, 'Comparing the workspace with its checkpoint', () =>
    checkpointActivities.workspaceChangesSince.executeWithOptions(
      { ...routedOptions(checkpointOptions, worker), summary: `compare files with turn ${input.checkpoint.turn}` },
      [input],
    ),
  );
}
