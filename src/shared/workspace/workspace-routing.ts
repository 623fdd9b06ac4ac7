// File activities run on the worker holding the files when workers share no filesystem (docs/operations.md).

/** The worker that holds an agent's files. Part of the agent's input; children, forks and resumed runs inherit it. */
export interface WorkspaceWorker {
  /** The worker's `SUBAGENTS_WORKER_ID`. */
  id: string;
  /** Its own task queue, polled by no other worker: {@link workspaceTaskQueue}. */
  taskQueue: string;
  /** How long a workspace activity waits for that worker before the agent is told it is gone. */
  waitMs: number;
}

/** Activities that read or write the agent's files (or its cwd's git repository and definitions). */
export const workspaceActivityNames = [
  'Read',
  'Glob',
  'Grep',
  'Write',
  'Edit',
  'Bash',
  'createWorktree',
  'finishWorktree',
  'adoptHookWorktree',
  'renderSystemPrompt',
  'renderAgentStart',
  'resolveAgentCwd',
  'loadSpawnContext',
  'runHook',
  // Settings files are read where the project is (docs/hooks.md, "Where hooks are configured").
  'reloadSettings',
  'prepareScript',
  // Workspace checkpoints (docs/rewind.md) run where the files are.
  'checkpointWorkspace',
  'restoreCheckpoint',
  'workspaceChangesSince',
] as const;
export type WorkspaceActivityName = (typeof workspaceActivityNames)[number];

/** How long a workspace activity waits for its worker by default: a restart fits, a lost machine does not. */
export const defaultWorkspaceWaitMs = 5 * 60_000;
/** Bounds of the wait (a shorter one fails during an ordinary worker restart). */
export const minWorkspaceWaitMs = 1000;
export const maxWorkspaceWaitMs = 24 * 60 * 60_000;

const workerIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Checks a worker id (from the CLI, the client or SUBAGENTS_WORKER_ID); throws a message that says what is allowed. */
export function parseWorkerId(value: unknown, source = 'worker id'): string {
  if (typeof value !== 'string' || !workerIdPattern.test(value)) {
    const shown =
      typeof value === 'string'
        ? JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)
        : String(value);
    throw new Error(
      `Invalid ${source} ${shown}: use 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit (for example "build-host-1").`,
    );
  }
  return value;
}

/** Checks a wait in milliseconds; throws a message with the allowed range. */
export function parseWorkspaceWaitMs(value: unknown): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < minWorkspaceWaitMs ||
    value > maxWorkspaceWaitMs
  ) {
    throw new Error(
      `Invalid workspace wait ${String(value)}: give whole milliseconds from ${minWorkspaceWaitMs} to ${maxWorkspaceWaitMs}.`,
    );
  }
  return value;
}

/** The task queue only worker `workerId` polls, beside the shared `taskQueue`. */
export function workspaceTaskQueue(taskQueue: string, workerId: string): string {
  return `${taskQueue}@${parseWorkerId(workerId)}`;
}

/** The placement of an agent on a worker, as it goes into the agent's input. */
export function workspaceWorker(taskQueue: string, workerId: string, waitMs = defaultWorkspaceWaitMs): WorkspaceWorker {
  return {
    id: parseWorkerId(workerId),
    taskQueue: workspaceTaskQueue(taskQueue, workerId),
    waitMs: parseWorkspaceWaitMs(waitMs),
  };
}

/** True when `candidate` is `root` or lies below it (both absolute and normalised). */
export function isInsideDirectory(root: string, candidate: string): boolean {
  const base = root.endsWith('/') && root.length > 1 ? root.slice(0, -1) : root;
  return candidate === base || candidate.startsWith(base === '/' ? '/' : `${base}/`);
}
