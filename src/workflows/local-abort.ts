import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { localSetupActivities, localSetupOptions } from './activity-proxies';
import { hasPatch } from './patches';

/**
 * Marks runs whose cancelled turns abort their running tool calls on this worker at once, by local
 * activity (docs/operations.md, "Worker tuning"; docs/testing.md, patches).
 */
export const localToolAbortPatch = 'local-tool-abort';

/** Scopes whose cancellation already aborts this agent's calls: one local activity per cancelled scope. */
const watched = new WeakSet<CancellationScope>();

/**
 * Called where a workspace tool call (Glob, Grep, Write, Edit, Bash) goes out as an activity on the
 * agent's own task queue; those answer an abort as they answer Temporal's cancellation. When the scope it
 * runs in is cancelled (a stop or an interrupt), `abortRunningCalls` runs on the worker running this
 * workflow task, usually the one running the call (eager dispatch), and aborts the agent's calls found
 * there: a Bash command is killed now instead of at its next heartbeat (up to a second later). Temporal's
 * own cancellation goes out as before, so a call on another worker still learns of it there.
 */
export function abortLocallyWhenCancelled(): void {
  const scope = CancellationScope.current();
  if (!scope.cancellable || watched.has(scope)) return;
  watched.add(scope);
  scope.cancelRequested.catch(() => {
    if (!hasPatch(localToolAbortPatch)) return;
    const agentId = workflowInfo().workflowId;
    void CancellationScope.nonCancellable(() =>
      localSetupActivities.abortRunningCalls.executeWithOptions({ ...localSetupOptions, summary: 'abort running tool calls' }, [{ agentId }]),
    ).catch(() => undefined);
  });
}
