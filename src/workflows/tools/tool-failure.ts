import { ActivityFailure, ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { ToolOutcome } from '../../shared/tools/tool-results';

/** Turns an activity failure into what the model is told; cancellations propagate. */
export function failureOutcome(name: string, error: unknown): ToolOutcome {
  if (isCancellation(error)) throw error;
  if (error instanceof ActivityFailure && name === 'Bash' && error.cause instanceof TimeoutFailure) {
    return {
      isError: true,
      content:
        'Bash was interrupted: its worker stopped heartbeating before the command finished — the worker stopped, or it lost its ' +
        'connection to the Temporal server — so the command may have partially run. Check its effects (files, processes) before running it again.',
    };
  }
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
  return { isError: true, content: `${name} failed: ${message}` };
}
