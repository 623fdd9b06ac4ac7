/** What a tool needs from its runtime (Temporal's activity context, or a test). */
import os from 'node:os';
import path from 'node:path';
import type { TokenUsage } from '../../shared/model/messages';
import { toolLimits } from '../../shared/tools/tool-definitions';
import type { ShellOptions } from '../../config/shell-options';
import { ToolCancelled } from './tool-error';

export interface ToolEnv {
  /** Aborted when the call is cancelled. */
  signal: AbortSignal;
  /** Tells Temporal the call is alive (and lets it deliver cancellation). */
  heartbeat: (details?: unknown) => void;
  /** Where oversized results are saved; default {@link defaultResultsDir}. Readable by the read-only tools. */
  resultsDir?: string;
  /** ripgrep binary used to list files; false forces the built-in walker; default: `rg` from PATH if present. */
  ripgrep?: string | false;
  /** Write and Edit change a file with several hard links through a fresh inode instead of refusing (SUBAGENTS_ALLOW_HARDLINK_WRITES). */
  allowHardLinkWrites?: boolean;
  /** How Bash runs commands (environment allowlist, another user). */
  shell?: ShellOptions;
  /** Told what each of the tool's own model calls was billed, as soon as it answers (the web tools' budget charge). */
  billed?: (usage: TokenUsage) => void;
}

/** `<tmpdir>/subagents-tool-results`. */
export function defaultResultsDir(): string {
  return path.join(os.tmpdir(), 'subagents-tool-results');
}

/** The results directory of an environment. */
export function resultsDirOf(env: ToolEnv): string {
  return path.resolve(env.resultsDir ?? defaultResultsDir());
}

/** Returns a function to call inside long loops: throws once cancelled, heartbeats at most once a second. */
export function createCheckpoint(env: ToolEnv, intervalMs: number = toolLimits.heartbeatIntervalMs): () => void {
  let lastBeat = 0;
  return () => {
    if (env.signal.aborted) throw new ToolCancelled();
    const now = Date.now();
    if (now - lastBeat >= intervalMs) {
      lastBeat = now;
      env.heartbeat();
    }
  };
}
