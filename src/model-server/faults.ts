/** Fault bookkeeping: injected faults for the next matching requests, scripted faults per (agent, turn). */
import { ApiError, type ApiErrorType } from './api-error';
import type { FaultSpec } from './scenario-schema';

/** What a fault's `match` is compared with. */
export interface FaultTarget {
  agentKey: string;
  agentId?: string;
  agentType?: string;
  turnIndex: number;
}

const defaultRetryAfterSeconds = 1;
/** slow-first-byte without `delayMs`. */
export const defaultSlowFirstByteMs = 1000;

function matches(spec: FaultSpec, target: FaultTarget): boolean {
  const match = spec.match;
  if (!match) return true;
  return (
    (match.agentId === undefined || match.agentId === target.agentId) &&
    (match.agentType === undefined || match.agentType === target.agentType) &&
    (match.turnIndex === undefined || match.turnIndex === target.turnIndex)
  );
}

export class FaultBook {
  private injected: Array<{ spec: FaultSpec; remaining: number }> = [];
  private readonly scriptedAttempts = new Map<string, number>();

  /** Queues a fault for the next `times` matching requests. */
  inject(spec: FaultSpec): void {
    this.injected.push({ spec, remaining: spec.times ?? 1 });
  }

  /** Takes this request's fault: an injected one first, else the turn's while under `times` attempts. */
  take(target: FaultTarget, scripted: FaultSpec | undefined): FaultSpec | undefined {
    const injected = this.injected.find((entry) => entry.remaining > 0 && matches(entry.spec, target));
    if (injected) {
      injected.remaining -= 1;
      this.injected = this.injected.filter((entry) => entry.remaining > 0);
      return injected.spec;
    }
    if (!scripted) return undefined;
    const key = `${target.agentKey}\u0000${target.turnIndex}`;
    const attempts = this.scriptedAttempts.get(key) ?? 0;
    this.scriptedAttempts.set(key, attempts + 1);
    return attempts < (scripted.times ?? 1) ? scripted : undefined;
  }

  /** Pending injected faults (for diagnostics). */
  pending(): FaultSpec[] {
    return this.injected.map((entry) => entry.spec);
  }

  reset(): void {
    this.injected = [];
    this.scriptedAttempts.clear();
  }
}

/** The Messages API's error.type for an HTTP status (https://docs.claude.com/en/api/errors). */
export function apiErrorTypeFor(status: number): ApiErrorType {
  const types: Record<number, ApiErrorType> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    500: 'api_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function defaultErrorMessage(status: number): string {
  return status === 400 ? 'Injected invalid request.' : `Injected HTTP ${status} error.`;
}

/** The HTTP error a status-code fault answers with; undefined for the stream-shaped faults. */
export function faultError(spec: FaultSpec): ApiError | undefined {
  switch (spec.kind) {
    case '429': {
      const seconds = spec.retryAfterSeconds ?? defaultRetryAfterSeconds;
      return new ApiError(
        429,
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50 requests per minute. ' +
          'For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage.',
        {
          'retry-after': String(seconds),
          'anthropic-ratelimit-requests-limit': '50',
          'anthropic-ratelimit-requests-remaining': '0',
        },
      );
    }
    case '529':
      return new ApiError(
        529,
        'overloaded_error',
        'Overloaded',
        spec.retryAfterSeconds === undefined ? {} : { 'retry-after': String(spec.retryAfterSeconds) },
      );
    case '500':
      return new ApiError(
        500,
        'api_error',
        'Internal server error',
        spec.retryAfterSeconds === undefined ? {} : { 'retry-after': String(spec.retryAfterSeconds) },
      );
    case 'http-error': {
      const status = spec.status ?? 400;
      return new ApiError(
        status,
        (spec.errorType as ApiErrorType | undefined) ?? apiErrorTypeFor(status),
        spec.message ?? defaultErrorMessage(status),
      );
    }
    case 'stream-cut':
    case 'slow-first-byte':
    case 'overloaded-sse':
      return undefined;
  }
}
