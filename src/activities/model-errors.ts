import { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '@anthropic-ai/sdk';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { ErrorType } from '../shared/protocol/errors';

/** Seconds or an HTTP date from `retry-after` / `retry-after-ms`, as milliseconds. */
export function retryDelayMs(
  headers: Headers | Record<string, string> | undefined,
  nowMs = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null | undefined =>
    headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const milliseconds = Number(get('retry-after-ms'));
  if (get('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function typeForStatus(status: number): string {
  if (status === 408) return ErrorType.ModelTimeout;
  if (status === 409) return ErrorType.ModelConflict;
  if (status === 429) return ErrorType.ModelRateLimit;
  if (status === 529) return ErrorType.ModelOverloaded;
  if (status >= 500) return ErrorType.ModelServerError;
  if (status === 401) return ErrorType.ModelAuthentication;
  if (status === 403) return ErrorType.ModelPermission;
  if (status === 404) return ErrorType.ModelNotFound;
  return ErrorType.ModelBadRequest;
}

/** A provider error as an ApplicationFailure: 408/409/429/5xx and connection errors retry; `x-should-retry` wins. */
export function toModelInvocationFailure(error: unknown): Error {
  if (error instanceof APIUserAbortError) return new CancelledFailure('Model call cancelled');
  if (error instanceof APIConnectionTimeoutError) {
    return ApplicationFailure.retryable(`Model call timed out: ${error.message}`, ErrorType.ModelTimeout);
  }
  if (error instanceof APIConnectionError) {
    return ApplicationFailure.retryable(`Could not reach the model API: ${error.message}`, ErrorType.ModelConnection);
  }
  if (error instanceof APIError) {
    const status = error.status;
    const bodyMessage = (error.error as { error?: { message?: string } } | undefined)?.error?.message;
    const message = bodyMessage ?? error.message;
    if (status === undefined) {
      // An `event: error` inside a 200 stream (e.g. overloaded_error): transient.
      const type = error.type === 'overloaded_error' ? ErrorType.ModelOverloaded : ErrorType.ModelServerError;
      return ApplicationFailure.retryable(`Model stream error: ${message}`, type);
    }
    const headers = error.headers as Headers | undefined;
    const shouldRetryHeader = headers?.get?.('x-should-retry');
    const retryable =
      shouldRetryHeader === 'true'
        ? true
        : shouldRetryHeader === 'false'
          ? false
          : status === 408 || status === 409 || status === 429 || status >= 500;
    const type = typeForStatus(status);
    const text = `Model API ${status} ${error.type ?? ''}: ${message}`.replace(/\s+:/, ':');
    if (!retryable) return ApplicationFailure.nonRetryable(text, type);
    return ApplicationFailure.create({ message: text, type, nextRetryDelay: retryDelayMs(headers) });
  }
  if (error instanceof Error && /stream ended without producing/i.test(error.message)) {
    return ApplicationFailure.retryable(`Model stream was cut: ${error.message}`, ErrorType.ModelConnection);
  }
  return error instanceof Error ? error : new Error(String(error));
}
