/** The API's error responses: status, `error.type` and message, rendered in the real body shape. */

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error'
  | 'billing_error'
  | 'request_too_large'
  | 'timeout_error';

/** An error the server answers with instead of a message; thrown by validation, caught by the handler. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 400 `invalid_request_error` with the given message. */
export const invalidRequest = (message: string): ApiError => new ApiError(400, 'invalid_request_error', message);

/** `{"type":"error","error":{"type":T,"message":M},"request_id":"req_..."}` */
export function errorBody(type: ApiErrorType, message: string, requestId: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: requestId });
}
