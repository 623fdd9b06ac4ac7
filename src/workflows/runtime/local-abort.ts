import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { localSetupActivities, localSetupOptions } from './activity-proxies';
import { hasPatch } from './patches';

/**
 * Marks runs whose cancelled turns abort their running tool calls on this worker at once, by local
 * activity (docs/operations.md, "Worker tuning"; docs/testing.md, patches).
 */
export const localToolAbortPatch = 'local-tool-abort';

/**
 * Marks runs whose cancelled scopes run `abortRunningCalls` only while a call of theirs is still
 * running. A turn's scope stays attached to the agent's own until the run ends, so without it a stop
 * ran one local activity for every earlier turn that had called a workspace tool (42 stopped leaves
 * ran 137 in bench:cancel), each a marker event and a round trip of the worker's busiest thread.
 */
export const abortOnlyRunningPatch = 'abort-only-running-calls';

/**
 * Marks runs whose cancelled turns also abort their running model call on this worker (the same local
 * activity): Temporal's cancellation reaches a model call only with the answer to its next heartbeat,
 * which the SDK sends at most every 24 s, so a stopped or interrupted agent's request streamed on (and
 * was billed) until then or until it finished.
 */
export const localModelAbortPatch = 'local-model-abort';

/** Scopes whose cancellation already aborts this agent's calls: one local activity per cancelled scope. */
const watched = new WeakSet<CancellationScope>();

/** Calls (workspace tools, model calls) still running in each scope. */
const running = new WeakMap<CancellationScope, number>();

/** `abortRunningCalls` local activities not yet done. */
const aborting = new Set<Promise<unknown>>();

/**
 * The aborts still running, or undefined when none is: an agent ending after a cancelled turn waits for
 * them (a workflow that closes drops its local activities still running, and a model call's turn, which
 * does not wait for its activity's cancellation, may end first).
 */
export function abortsRunning(): Promise<unknown> | undefined {
  return aborting.size > 0 ? Promise.all(aborting) : undefined;
}

/**
 * Called where a workspace tool call (Glob, Grep, Write, Edit, Bash) goes out as an activity on the
 * agent's own task queue, and where a model call goes out; a tool answers an abort as it answers
 * Temporal's cancellation, a model call cuts its request and ends when Temporal's cancellation comes
 * (src/activities/model.ts). When the scope it runs in is cancelled (a stop or an interrupt) while a
 * call of it runs, `abortRunningCalls` runs on the worker running this workflow task, usually the one
 * running the call (eager dispatch), and aborts the agent's calls found there: a Bash command is killed
 * now instead of at its next heartbeat (up to a second later). Temporal's own cancellation goes out as
 * before, so a call on another worker still learns of it there. Returns what to call when the call has ended.
 */
export function abortLocallyWhenCancelled(): () => void {
  const scope = CancellationScope.current();
  if (!scope.cancellable) return ended;
  running.set(scope, (running.get(scope) ?? 0) + 1);
  const done = () => running.set(scope, (running.get(scope) ?? 1) - 1);
  if (watched.has(scope)) return done;
  watched.add(scope);
  scope.cancelRequested.catch(() => {
    if (!hasPatch(localToolAbortPatch)) return;
    // An earlier turn's scope, cancelled with the agent: its calls have ended, nothing to abort.
    if (!running.get(scope) && hasPatch(abortOnlyRunningPatch)) return;
    const agentId = workflowInfo().workflowId;
    const abort = CancellationScope.nonCancellable(() =>
      localSetupActivities.abortRunningCalls.executeWithOptions({ ...localSetupOptions, summary: 'abort running tool calls' }, [{ agentId }]),
    ).catch(() => undefined);
    if (!hasPatch(localModelAbortPatch)) return;
    aborting.add(abort);
    void abort.then(() => aborting.delete(abort));
  });
  return done;
}

/** Nothing to count for a call outside a cancellable scope. */
function ended(): void {}
