// WebFetch's GET, each address checked at connect time so DNS cannot redirect a checked name (docs/tools.md, WebFetch).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ErrorType, errorText, type ErrorTypeName } from '../../shared/protocol/errors';
import { addressAllowed, type PrivateAddressAllowance } from '../../shared/policy/address-policy';

export interface FetchPolicy {
  allowance: PrivateAddressAllowance;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  maxUrlChars: number;
}

export type FetchOutcome =
  | { type: 'page'; url: string; status: number; contentType: string; body: Buffer }
  | { type: 'redirect'; from: string; to: string; status: number };

/** A fetch WebFetch refuses or cannot finish; the message is what the model reads. */
export class FetchRefusal extends Error {
  override readonly name = 'FetchRefusal';

  constructor(
    readonly kind: ErrorTypeName,
    detail: string,
  ) {
    super(errorText(kind, detail));
  }
}

const userAgent = 'durable-subagents-WebFetch/0.1';

/** Parses and checks a URL the model gave. */
export function checkUrl(raw: string, maxChars: number): URL {
  if (raw.length > maxChars)
    throw new FetchRefusal(ErrorType.UrlNotAllowed, `the URL is longer than ${maxChars} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefusal(
      ErrorType.UrlNotAllowed,
      `"${raw.slice(0, 200)}" is not a valid absolute URL; give a complete http:// or https:// URL.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusal(
      ErrorType.UrlNotAllowed,
      `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}.`,
    );
  }
  if (url.username || url.password)
    throw new FetchRefusal(ErrorType.UrlNotAllowed, 'URLs with a user name or password are not fetched.');
  return url;
}

const withoutWww = (host: string) => host.toLowerCase().replace(/^www\./, '');
const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/** A redirect WebFetch follows by itself: same host (www. aside), and the same scheme and port or an upgrade to https. */
export function isSameSiteRedirect(from: URL, to: URL): boolean {
  if (withoutWww(from.hostname) !== withoutWww(to.hostname)) return false;
  if (from.protocol === to.protocol) return portOf(from) === portOf(to);
  return from.protocol === 'http:' && to.protocol === 'https:' && to.port === '';
}

/** A DNS lookup that refuses (FetchRefusal) a host resolving to an address the allowance does not cover. */
export function refusingLookup(allowance: PrivateAddressAllowance): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const refused = addresses.find((entry) => !addressAllowed(hostname, entry.address, allowance));
      if (refused) return callback(privateAddressError(hostname, refused.address), '', 4);
      if (options.all) return (callback as unknown as (error: null, all: dns.LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

function privateAddressError(host: string, address: string): FetchRefusal {
  return new FetchRefusal(
    ErrorType.UrlNotAllowed,
    `${host} resolves to ${address}, a private, local or reserved address; such pages are not fetched unless the runtime allows them (SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE).`,
  );
}

interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function getOnce(url: URL, policy: FetchPolicy, signal: AbortSignal): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A literal address is never looked up, so it is checked here.
  if (/^[\d.]+$|:/.test(host) && !addressAllowed(host, host, policy.allowance))
    return Promise.reject(privateAddressError(host, host));
  const library = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const request = library.get(url, {
      headers: {
        'user-agent': userAgent,
        accept: 'text/html, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.5',
        'accept-encoding': 'identity',
      },
      lookup: refusingLookup(policy.allowance),
      signal,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const declared = Number(response.headers['content-length'] ?? '0');
      if (declared > policy.maxBytes) {
        response.destroy();
        return reject(
          new FetchRefusal(
            ErrorType.ContentTooLarge,
            `the page is ${declared} bytes; pages over ${policy.maxBytes} bytes are not fetched.`,
          ),
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > policy.maxBytes) {
          response.destroy();
          reject(
            new FetchRefusal(
              ErrorType.ContentTooLarge,
              `the page is larger than ${policy.maxBytes} bytes; such pages are not fetched.`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks) }));
    });
  });
}

/** Fetches a URL under the policy; throws FetchRefusal with a message for the model. */
export async function fetchUrl(raw: string, policy: FetchPolicy, cancel: AbortSignal): Promise<FetchOutcome> {
  let url = checkUrl(raw, policy.maxUrlChars);
  const signal = AbortSignal.any([cancel, AbortSignal.timeout(policy.timeoutMs)]);
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      response = await getOnce(url, policy, signal);
    } catch (error) {
      if (error instanceof FetchRefusal) throw error;
      if (cancel.aborted) throw error;
      if (signal.aborted)
        throw new FetchRefusal(
          ErrorType.FetchFailed,
          `${url.href} did not answer within ${policy.timeoutMs / 1000} s.`,
        );
      throw new FetchRefusal(ErrorType.FetchFailed, `could not fetch ${url.href}: ${(error as Error).message}.`);
    }
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      const target = checkUrl(new URL(location, url).href, policy.maxUrlChars);
      if (!isSameSiteRedirect(url, target))
        return { type: 'redirect', from: url.href, to: target.href, status: response.status };
      if (redirects >= policy.maxRedirects)
        throw new FetchRefusal(ErrorType.FetchFailed, `${raw} redirected more than ${policy.maxRedirects} times.`);
      url = target;
      continue;
    }
    if (response.status >= 400)
      throw new FetchRefusal(ErrorType.FetchFailed, `${url.href} answered HTTP ${response.status}.`);
    return {
      type: 'page',
      url: url.href,
      status: response.status,
      contentType: String(response.headers['content-type'] ?? ''),
      body: response.body,
    };
  }
}
