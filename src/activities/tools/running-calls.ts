import { Context } from '@temporalio/activity';

/** Running tool calls by agent, aborted at once by a cancelled turn (docs/operations.md, "Worker tuning"). */
export class RunningCalls {
  private readonly byAgent = new Map<string, Set<AbortController>>();

  /** Tracks a call: its signal aborts with `cancellation` or `abort(agentId)`; call `done` when it ends. */
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

/** The current activity's signal, tracked by agent; a local activity gets Temporal's own (cancelled in its task). */
export function trackCurrentCall(calls: RunningCalls | undefined): { signal: AbortSignal; done: () => void } {
  const context = Context.current();
  const { isLocal, workflowExecution } = context.info;
  if (isLocal || !calls || !workflowExecution) return { signal: context.cancellationSignal, done: () => undefined };
  return calls.track(workflowExecution.workflowId, context.cancellationSignal);
}
