import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { localSetupActivities, localSetupOptions } from './activity-proxies';

/** Scopes whose cancellation already aborts this agent's calls: one local activity per cancelled scope. */
const watched = new WeakSet<CancellationScope>();

/** Calls (workspace tools, model calls) still running in each scope. */
const running = new WeakMap<CancellationScope, number>();

const aborting = new Set<Promise<unknown>>();

/** The aborts still running, or undefined: an agent ending after a cancelled turn waits for them. */
export function abortsRunning(): Promise<unknown> | undefined {
  return aborting.size > 0 ? Promise.all(aborting) : undefined;
}

/** Counts a call in its scope; a cancel while it runs aborts the agent's calls on this worker. Returns its end. */
export function abortLocallyWhenCancelled(): () => void {
  const scope = CancellationScope.current();
  if (!scope.cancellable) return ended;
  running.set(scope, (running.get(scope) ?? 0) + 1);
  const done = () => running.set(scope, (running.get(scope) ?? 1) - 1);
  if (watched.has(scope)) return done;
  watched.add(scope);
  scope.cancelRequested.catch(() => {
    // An earlier turn's scope, cancelled with the agent: its calls have ended, nothing to abort.
    if (!running.get(scope)) return;
    const agentId = workflowInfo().workflowId;
    const abort = CancellationScope.nonCancellable(() =>
      localSetupActivities.abortRunningCalls.executeWithOptions(
        { ...localSetupOptions, summary: 'abort running tool calls' },
        [{ agentId }],
      ),
    ).catch(() => undefined);
    aborting.add(abort);
    void abort.then(() => aborting.delete(abort));
  });
  return done;
}

/** Nothing to count for a call outside a cancellable scope. */
function ended(): void {}
