import { getExternalWorkflowHandle, isCancellation, type SignalDefinition } from '@temporalio/workflow';

/**
 * Signals another agent when it may already be gone (finished, stopped, or never started): a
 * failed delivery is answered with false instead of failing this agent. A cancellation of the
 * sending scope is never swallowed: it is this agent's own stop or interrupt.
 */
export async function signalBestEffort<Args extends unknown[]>(
  workflowId: string,
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(signal, ...args);
    return true;
  } catch (failure) {
    if (isCancellation(failure)) throw failure;
    return false;
  }
}

/** Requests cancellation of another agent's workflow; false when it is already gone. Never swallows this agent's own cancellation. */
export async function cancelBestEffort(workflowId: string): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(workflowId).cancel();
    return true;
  } catch (failure) {
    if (isCancellation(failure)) throw failure;
    return false;
  }
}
