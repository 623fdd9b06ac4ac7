import type Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@temporalio/client';
import { resolveAgentCwd } from './agent-cwd';
import { createModelActivities } from './model';
import { createResumeActivities, loadSpawnContext } from './spawn-context';
import { renderSystemPrompt } from './system-prompt';
import { createToolActivities } from './tools';
import type { ShellOptions } from './tools/shell-options';
import { createWorktreeActivities } from './worktree';

/** Everything activities need from the outside world. */
export interface ActivityDependencies {
  anthropic: Anthropic;
  temporalClient: Client;
  /** Where oversized tool results are stored. */
  toolResultsDir?: string;
  /** How Bash runs commands (environment allowlist, another user). */
  shell?: ShellOptions;
}

/** All activities of the runtime; the worker registers this object, workflows import its type only. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    renderSystemPrompt,
    resolveAgentCwd,
    loadSpawnContext,
    ...createResumeActivities(dependencies.temporalClient),
    ...createModelActivities(dependencies),
    ...createToolActivities({ resultsDir: dependencies.toolResultsDir, shell: dependencies.shell }),
    ...createWorktreeActivities(),
  };
}
