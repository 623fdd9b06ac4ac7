import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { retryDelayMs, toModelInvocationFailure } from '../../src/activities/model-errors';

function apiError(status: number, headers: Record<string, string> = {}, type = 'x_error'): APIError {
  return APIError.generate(
    status,
    { type: 'error', error: { type, message: `boom ${status}` } },
    undefined,
    new Headers(headers),
  );
}

describe('toModelInvocationFailure', () => {
  it.each([
    [408, true, 'ModelInvocationError.Timeout'],
    [409, true, 'ModelInvocationError.Conflict'],
    [429, true, 'ModelInvocationError.RateLimit'],
    [500, true, 'ModelInvocationError.ServerError'],
    [529, true, 'ModelInvocationError.Overloaded'],
    [400, false, 'ModelInvocationError.BadRequest'],
    [401, false, 'ModelInvocationError.Authentication'],
    [403, false, 'ModelInvocationError.PermissionDenied'],
    [404, false, 'ModelInvocationError.NotFound'],
  ])('classifies %i', (status, retryable, type) => {
    const failure = toModelInvocationFailure(apiError(status)) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(!retryable);
    expect(failure.type).toBe(type);
    expect(failure.message).toContain(`boom ${status}`);
  });

  it('uses retry-after as the next retry delay', () => {
    const failure = toModelInvocationFailure(apiError(429, { 'retry-after': '3' })) as ApplicationFailure;
    expect(failure.nextRetryDelay).toBe(3000);
  });

  it('lets x-should-retry override the status', () => {
    expect(
      (toModelInvocationFailure(apiError(500, { 'x-should-retry': 'false' })) as ApplicationFailure).nonRetryable,
    ).toBe(true);
    expect(
      (toModelInvocationFailure(apiError(400, { 'x-should-retry': 'true' })) as ApplicationFailure).nonRetryable,
    ).toBe(false);
  });

  it('treats connection errors as retryable', () => {
    const failure = toModelInvocationFailure(
      new APIConnectionError({ message: 'socket hang up' }),
    ) as ApplicationFailure;
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('ModelInvocationError.Connection');
  });
});

describe('retryDelayMs', () => {
  it('prefers retry-after-ms, then seconds, then an HTTP date', () => {
    expect(retryDelayMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryDelayMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryDelayMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(retryDelayMs(new Headers({}))).toBeUndefined();
  });
});
