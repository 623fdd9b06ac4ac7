// Workspace activities refuse paths outside this worker's SUBAGENTS_WORKSPACE_ROOT (docs/operations.md).
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType, errorText } from '../shared/protocol/errors';
import { isWorkspaceTool } from '../shared/policy/tool-classification';
import type { ToolCallInput, ToolCallResult } from '../shared/tools/tools';
import { isInsideDirectory, type WorkspaceActivityName } from '../shared/workspace/workspace-routing';
import type { FinishWorktreeInput } from '../shared/workspace/worktree';

/** Checks the root at worker start-up: it must exist and be a directory. Returns its real path. */
export function resolveWorkspaceRoot(root: string): string {
  if (!path.isAbsolute(root)) throw new Error(`SUBAGENTS_WORKSPACE_ROOT must be an absolute path (got "${root}").`);
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    throw new Error(
      `SUBAGENTS_WORKSPACE_ROOT=${root} does not exist: create it, or point it at the directory that holds this worker's checkouts.`,
    );
  }
  if (!statSync(real).isDirectory()) throw new Error(`SUBAGENTS_WORKSPACE_ROOT=${root} is not a directory.`);
  return real;
}

/** A path's real location when it exists (symlinks resolved), else its normalised absolute form. */
function located(candidate: string): string {
  const absolute = path.resolve(candidate);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** The paths a workspace activity acts on, from its input. */
function pathsOf(name: WorkspaceActivityName, input: unknown): string[] {
  const value = (input ?? {}) as Record<string, unknown>;
  switch (name) {
    case 'finishWorktree':
      return [(value as unknown as FinishWorktreeInput).worktree?.path].filter(
        (entry): entry is string => typeof entry === 'string',
      );
    case 'adoptHookWorktree':
      // The hook's directory is where the agent's files will be: it must be on this worker.
      return [value.cwd, value.printed].filter((entry): entry is string => typeof entry === 'string');
    case 'createWorktree':
    case 'renderSystemPrompt':
    case 'renderAgentStart':
    case 'loadSpawnContext':
    case 'reloadSettings':
      return typeof value.cwd === 'string' ? [value.cwd] : [];
    case 'runHook':
      return [value.cwd, value.projectDir].filter((entry): entry is string => typeof entry === 'string');
    case 'checkpointWorkspace':
      return typeof value.cwd === 'string' ? [value.cwd] : [];
    case 'restoreCheckpoint':
    case 'workspaceChangesSince': {
      const checkpoint = value.checkpoint as { root?: unknown } | undefined;
      const target = value.targetRoot ?? value.root ?? checkpoint?.root;
      return typeof target === 'string' ? [target] : [];
    }
    case 'resolveAgentCwd':
      return [value.parentCwd, value.workspaceRoot].filter((entry): entry is string => typeof entry === 'string');
    default: {
      const context = (value as unknown as ToolCallInput).context;
      return [context?.workspaceRoot, context?.cwd].filter((entry): entry is string => typeof entry === 'string');
    }
  }
}

/** The first path of the call outside `root`, or undefined when all are inside. */
export function pathOutsideRoot(root: string, name: WorkspaceActivityName, input: unknown): string | undefined {
  return pathsOf(name, input).find((candidate) => !isInsideDirectory(root, located(candidate)));
}

function refusalText(root: string, workerName: string, outside: string): string {
  return errorText(
    ErrorType.WorkspaceNotOnThisWorker,
    `${outside} is not under ${root}, the workspace root of worker ${workerName}, so its files are not on this machine. ` +
      'Start the agent on the worker that holds it (`subagents start --worker ID`, docs/operations.md) or give a cwd under this root.',
  );
}

type AnyActivity = (input: never) => Promise<unknown>;

/** Wraps workspace activities with the root check: a tool call gets an error result, others fail without retry. */
export function guardWorkspaceActivities<T extends Record<string, AnyActivity>>(
  activities: T,
  root: string,
  workerName: string,
  names: readonly WorkspaceActivityName[],
): T {
  const guarded: Record<string, AnyActivity> = { ...activities };
  for (const name of names) {
    const activity = activities[name];
    if (!activity) continue;
    const isTool = isWorkspaceTool(name);
    guarded[name] = async (input: never) => {
      const outside = pathOutsideRoot(root, name, input);
      if (outside === undefined) return activity(input);
      const text = refusalText(root, workerName, outside);
      if (isTool) return { content: text, isError: true } satisfies ToolCallResult;
      throw ApplicationFailure.nonRetryable(text, ErrorType.WorkspaceNotOnThisWorker);
    };
  }
  return guarded as T;
}
