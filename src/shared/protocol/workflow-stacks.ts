/** How deep the stacks of workflow code are (docs/operations.md, "Worker tuning"): `short` (default, 5 frames) or `full` (Node's 10). */
export type WorkflowStacks = 'short' | 'full';

/** A `SUBAGENTS_WORKFLOW_STACKS` (or `workflowStacks`) value the worker cannot take: it does not start. */
export class WorkflowStacksError extends Error {
  override readonly name = 'WorkflowStacksError';
}

/** Reads `SUBAGENTS_WORKFLOW_STACKS`: `short`, `full` or nothing (short); anything else is a {@link WorkflowStacksError} saying what to give. */
export function parseWorkflowStacks(text: string | undefined, source = 'SUBAGENTS_WORKFLOW_STACKS'): WorkflowStacks {
  const value = (text ?? '').trim().toLowerCase();
  if (value === '' || value === 'short') return 'short';
  if (value === 'full') return 'full';
  throw new WorkflowStacksError(
    `${source}=${JSON.stringify(text)}: give "short" (the default: 5 stack frames per error and promise of workflow code) or "full" (Node's 10, for debugging with the UI's stack trace).`,
  );
}
