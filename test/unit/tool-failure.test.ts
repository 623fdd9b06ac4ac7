import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureOutcome } from '../../src/workflows/tools/tool-failure';

const activityFailure = (type: string, cause: Error) =>
  new ActivityFailure('activity failed', type, '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);

describe('what the model is told when a tool activity fails', () => {
  it('tells a Bash whose heartbeats stopped that it may have partially run, naming both a dead worker and a lost server', () => {
    const outcome = failureOutcome(
      'Bash',
      activityFailure('Bash', new TimeoutFailure('heartbeat timeout', undefined, TimeoutType.HEARTBEAT)),
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toContain('may have partially run');
    expect(outcome.content).toContain('lost its connection to the Temporal server');
    expect(outcome.content).not.toMatch(/the worker running it stopped before/);
  });

  it('gives other failures with their message, and lets cancellation through', () => {
    expect(
      failureOutcome('Read', activityFailure('Read', ApplicationFailure.nonRetryable('disk on fire', 'X'))),
    ).toEqual({ isError: true, content: 'Read failed: disk on fire' });
    expect(() => failureOutcome('Bash', new CancelledFailure('stop'))).toThrow(CancelledFailure);
  });
});
