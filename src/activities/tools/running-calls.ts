import { Context } from '@temporalio/activity';

/**
 * The tool calls running on this worker, by agent (docs/operations.md, "Worker tuning"). A running
 * activity learns that it was cancelled only from the answer to its next heartbeat — up to a second
 * later for Bash. When an agent's turn is cancelled (a stop or an interrupt), the agent runs
 * `abortRunningCalls` as a local activity on the worker running its workflow task, which is usually
 * the worker running its tools (eager dispatch): the calls found here are aborted at once. The
 * cancellation still goes through Temporal as before; a call on another worker learns of it there.
 */
export class RunningCalls {
  private readonly byAgent = new Map<string, Set<AbortController>>();

  /**
   * Tracks one call of `agentId`: the returned signal is aborted when `cancellation` is (Temporal's)
   * or when the agent's calls are aborted here. Call `done` when the call has ended.
   */
  track(agentId: string, cancellation: AbortSignal): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const onCancel = (): void => controller.abort(cancellation.reason);
    if (cancellation.aborted) onCancel();
    else cancellation.addEventListener('abort', onCancel, { once: true });
    let calls = this.byAgent.get(agentId);
    if (!calls) this.byAgent.set(agentId, (calls = new Set()));
    calls.add(controller);
    const done = (): void => {
      cancellation.removeEventListener('abort', onCancel);
      calls.delete(controller);
      if (calls.size === 0 && this.byAgent.get(agentId) === calls) this.byAgent.delete(agentId);
    };
    return { signal: controller.signal, done };
  }

  /** Aborts every call of `agentId` running on this worker; returns how many there were. */
  abort(agentId: string): number {
    const calls = [...(this.byAgent.get(agentId) ?? [])].filter((controller) => !controller.signal.aborted);
    for (const controller of calls) controller.abort(new Error(`the turn of ${agentId} was cancelled`));
    return calls.length;
  }

  /** How many calls of `agentId` run here (for tests and diagnostics). */
  count(agentId: string): number {
    return this.byAgent.get(agentId)?.size ?? 0;
  }
}

/**
 * The cancellation signal of the current tool activity, tracked in `calls` by its agent (the workflow
 * id), and what to call when it ends. A local activity or a worker without `calls` gets Temporal's own
 * signal: a local activity is cancelled inside its workflow task already.
 */
export function trackCurrentCall(calls: RunningCalls | undefined): { signal: AbortSignal; done: () => void } {
  const context = Context.current();
  const { isLocal, workflowExecution } = context.info;
  if (isLocal || !calls || !workflowExecution) return { signal: context.cancellationSignal, done: () => undefined };
  return calls.track(workflowExecution.workflowId, context.cancellationSignal);
}
