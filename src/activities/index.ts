import type Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@temporalio/client';
import { resolveAgentCwd } from './agent-cwd';
import { createModelActivities } from './model';
import { createPeekActivities } from './peek';
import os from 'node:os';
import { createAgentStartActivity } from './prompt/render-agent-start';
import { createResumeActivities, createSpawnContextLoader } from './spawn-context';
import { createRenderSystemPrompt } from './system-prompt';
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
  /** The user's home: ~/.claude/CLAUDE.md and ~/.claude/agents (default os.homedir(); tests pass a temp dir). */
  homeDir?: string;
}

/** All activities of the runtime; the worker registers this object, workflows import its type only. */
export function createActivities(dependencies: ActivityDependencies) {
  const homeDir = dependencies.homeDir ?? os.homedir();
  const loadSpawnContext = createSpawnContextLoader(homeDir);
  return {
    renderSystemPrompt: createRenderSystemPrompt(homeDir),
    renderAgentStart: createAgentStartActivity({ homeDir, loadSpawnContext }),
    resolveAgentCwd,
    loadSpawnContext,
    ...createResumeActivities(dependencies.temporalClient),
    ...createPeekActivities(dependencies.temporalClient),
    ...createModelActivities(dependencies),
    ...createToolActivities({ resultsDir: dependencies.toolResultsDir, shell: dependencies.shell }),
    ...createWorktreeActivities(),
  };
}
