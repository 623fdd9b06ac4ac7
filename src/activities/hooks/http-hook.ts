// An http hook (Claude Code's `type: "http"`): the event's JSON POSTed under the worker's egress rules (docs/hooks.md).
import http from 'node:http';
import https from 'node:https';
import type { HttpHook } from '../../shared/policy/hook-handlers';
import type { HttpHookOutcome } from '../../shared/policy/hook-answers';
import type { PrivateAddressAllowance } from '../../shared/policy/address-policy';
import { addressAllowed } from '../../shared/policy/address-policy';
import { hookLimits } from '../../shared/policy/hooks';
import { checkUrl, FetchRefusal, refusingLookup } from '../web/safe-fetch';

/** What an http hook may reach and read. */
export interface HttpHookPolicy {
  /** Private and loopback addresses it may reach (the worker's SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE, as WebFetch). */
  allowance: PrivateAddressAllowance;
  /** Bytes of the response body read; a longer body is cut there, and said so. */
  maxBodyBytes: number;
}

export const defaultHttpHookPolicy = (allowance: PrivateAddressAllowance): HttpHookPolicy => ({
  allowance,
  maxBodyBytes: hookLimits.maxOutputChars * 4,
});

const variableReference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Header values with `$VAR` and `${VAR}` filled from `env` for the variables `allowedEnvVars` lists; any other
 * reference becomes empty (Claude Code's rule). A value with CR, LF or NUL, before or after filling, is refused.
 */
export function expandHookHeaders(
  hook: Pick<HttpHook, 'headers' | 'allowedEnvVars'>,
  env: NodeJS.ProcessEnv,
): { headers: Record<string, string> } | { problem: string } {
  const allowed = new Set(hook.allowedEnvVars ?? []);
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(hook.headers ?? {})) {
    const value = template.replace(variableReference, (_match, braced?: string, bare?: string) => {
      const variable = (braced ?? bare)!;
      return allowed.has(variable) ? (env[variable] ?? '') : '';
    });
    // A line break would end the header and start another (header injection): never sent.
    if (/[\r\n\0]/.test(value))
      return { problem: `the header ${JSON.stringify(name)} holds a line break or NUL once filled; nothing was sent` };
    headers[name] = value;
  }
  return { headers };
}

/** POSTs the payload; never follows a redirect (a 3xx is a non-2xx answer). Resolves with how it ended, never throws. */
export function postHookEvent(
  hook: HttpHook,
  payload: Record<string, unknown>,
  options: { policy: HttpHookPolicy; timeoutMs: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv },
): Promise<HttpHookOutcome> {
  let url: URL;
  try {
    url = checkUrl(hook.url, 8_000);
  } catch (error) {
    return Promise.resolve({ type: 'failed', reason: `the hook's URL was refused: ${(error as Error).message}` });
  }
  const expanded = expandHookHeaders(hook, options.env ?? process.env);
  if ('problem' in expanded) return Promise.resolve({ type: 'failed', reason: expanded.problem });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A literal address is never looked up, so it is checked here.
  if ((/^[\d.]+$/.test(host) || host.includes(':')) && !addressAllowed(host, host, options.policy.allowance))
    return Promise.resolve({
      type: 'failed',
      reason: `the hook's URL was refused: ${host} is a private, local or reserved address, which hooks reach only where the worker allows it (SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE)`,
    });
  const body = JSON.stringify(payload);
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])]);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: HttpHookOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const library = url.protocol === 'https:' ? https : http;
    let request: http.ClientRequest;
    try {
      request = library.request(url, {
        method: 'POST',
        headers: {
          ...expanded.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'accept-encoding': 'identity',
        },
        lookup: refusingLookup(options.policy.allowance),
        signal,
      });
    } catch (error) {
      // Node refuses a header value it cannot send (a character outside Latin-1): nothing was sent.
      return finish({ type: 'failed', reason: `the hook's request could not be made: ${(error as Error).message}` });
    }
    request.on('error', (error) => {
      if (error instanceof FetchRefusal)
        return finish({ type: 'failed', reason: `the hook's URL was refused: ${error.message}` });
      if (signal.aborted && !options.signal?.aborted)
        return finish({ type: 'failed', reason: `the hook's URL did not answer within ${options.timeoutMs / 1000} s` });
      finish({ type: 'failed', reason: `the hook's URL could not be reached: ${error.message}` });
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let dropped = 0;
      response.on('data', (chunk: Buffer) => {
        const room = options.policy.maxBodyBytes - size;
        if (room <= 0) {
          dropped += chunk.length;
          // Enough read: the rest is not waited for.
          response.destroy();
          return;
        }
        chunks.push(chunk.subarray(0, room));
        size += Math.min(room, chunk.length);
        dropped += Math.max(0, chunk.length - room);
      });
      // A cut answer is not read at all: half a JSON object must not pass for plain text.
      const done = () =>
        finish(
          dropped > 0
            ? {
                type: 'failed',
                reason: `the hook's URL answered more than ${options.policy.maxBodyBytes} bytes; the answer was ignored`,
              }
            : { type: 'response', status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') },
        );
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    request.end(body);
  });
}
