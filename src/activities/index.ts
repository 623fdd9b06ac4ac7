import type Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@temporalio/client';
import { createBoardToolActivities } from './board-tools';
import { createModelActivities } from './model';
import { createResumeActivities, loadSpawnContext } from './spawn-context';
import { renderSystemPrompt } from './system-prompt';
import { createToolActivities } from './tools';
import { createWorktreeActivities } from './worktree';

/** Everything activities need from the outside world. */
export interface ActivityDependencies {
  anthropic: Anthropic;
  temporalClient: Client;
  /** Where oversized tool results are stored. */
  toolResultsDir?: string;
}

/** All activities of the runtime; the worker registers this object, workflows import its type only. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    renderSystemPrompt,
    loadSpawnContext,
    ...createResumeActivities(dependencies.temporalClient),
    ...createModelActivities(dependencies),
    ...createToolActivities({ resultsDir: dependencies.toolResultsDir }),
    ...createWorktreeActivities(),
    ...createBoardToolActivities(dependencies.temporalClient),
  };
}
