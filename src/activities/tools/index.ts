/** The workspace tools as Temporal activities: one activity type per tool, named like the tool. */
import { Context } from '@temporalio/activity';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';
import type { WorkspaceToolName } from '../../shared/policy/tool-classification';
import { runBash } from './bash';
import { runEdit } from './edit';
import { fileWriteOptionsFromEnv } from './file-write';
import { runGlob } from './glob';
import { runGrep } from './grep';
import { runRead } from './read';
import { trackCurrentCall, type RunningCalls } from './running-calls';
import type { ShellOptions } from '../../config/shell-options';
import type { ToolEnv } from './tool-env';
import type { ToolRunner } from './tool-runner';
import { runWrite } from './write';

export interface ToolActivityOptions {
  /** Where oversized results are saved (default `<tmpdir>/subagents-tool-results`). */
  resultsDir?: string;
  /** ripgrep binary for file listing; false: always use the built-in walker; default: `rg` on PATH if any. */
  ripgrep?: string | false;
  /** Write and Edit change hard-linked files through a fresh inode instead of refusing; default: SUBAGENTS_ALLOW_HARDLINK_WRITES. */
  allowHardLinkWrites?: boolean;
  /** How Bash runs commands (docs/security.md). */
  shell?: ShellOptions;
  /** This worker's running calls, which a cancelled agent aborts at once by local activity (`abortRunningCalls`). */
  runningCalls?: RunningCalls;
}

/** One activity function per tool. */
export type ToolActivities = Record<WorkspaceToolName, (input: ToolCallInput) => Promise<ToolCallResult>>;

/** The Temporal-independent core of each tool. */
export const toolRunners: Record<WorkspaceToolName, ToolRunner> = {
  Read: runRead,
  Glob: runGlob,
  Grep: runGrep,
  Write: runWrite,
  Edit: runEdit,
  Bash: runBash,
};

/** Activities `Read`, `Glob`, `Grep`, `Write`, `Edit`, `Bash`, taking cancellation and heartbeats from the activity context. */
export function createToolActivities(options: ToolActivityOptions = {}): ToolActivities {
  const allowHardLinkWrites =
    options.allowHardLinkWrites ?? fileWriteOptionsFromEnv(process.env).allowHardLinkWrites ?? false;
  const envOfCurrentActivity = (): ToolEnv => {
    const context = Context.current();
    return {
      signal: context.cancellationSignal,
      // A local activity (Read, docs/operations.md "Worker tuning") has no heartbeat to record: its workflow task stands for it.
      heartbeat: context.info.isLocal ? () => undefined : (details?: unknown) => context.heartbeat(details),
      ...(options.resultsDir !== undefined ? { resultsDir: options.resultsDir } : {}),
      ...(options.ripgrep !== undefined ? { ripgrep: options.ripgrep } : {}),
      ...(options.shell ? { shell: options.shell } : {}),
      allowHardLinkWrites,
    };
  };
  const activity = (runner: ToolRunner) => async (input: ToolCallInput) => {
    const env = envOfCurrentActivity();
    const tracked = trackCurrentCall(options.runningCalls);
    try {
      return await runner(input, { ...env, signal: tracked.signal });
    } finally {
      tracked.done();
    }
  };
  return {
    Read: activity(runRead),
    Glob: activity(runGlob),
    Grep: activity(runGrep),
    Write: activity(runWrite),
    Edit: activity(runEdit),
    Bash: activity(runBash),
  };
}
