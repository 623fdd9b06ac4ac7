/** WebFetch and WebSearch as Temporal activities, one activity type each, named like the tool. */
import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { WebToolCallInput } from '../../shared/extra-tool-calls';
import { resolveModelAlias } from '../../shared/models';
import type { ToolCallResult } from '../../shared/tools';
import { webToolLimits } from '../../shared/web-tool-definitions';
import type { ToolEnv } from '../tools/tool-env';
import { noPrivateAddresses, parsePrivateAllowance, type PrivateAddressAllowance } from './address-policy';
import { PageCache } from './page-cache';
import { createWebFetch } from './web-fetch';
import { createWebSearch } from './web-search';

/** Settings of the web tools (the worker reads them from the environment: docs/configuration.md). */
export interface WebToolSettings {
  /** Private, loopback and other non-public addresses WebFetch may reach (default: none). */
  allowPrivateAddresses?: PrivateAddressAllowance;
  /** Model that answers WebFetch prompts (default haiku). */
  smallModel?: string;
}

/** SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE and SUBAGENTS_SMALL_MODEL; throws on a malformed allowance. */
export function webSettingsFromEnv(env: NodeJS.ProcessEnv): WebToolSettings {
  const smallModel = env.SUBAGENTS_SMALL_MODEL?.trim();
  return { allowPrivateAddresses: parsePrivateAllowance(env.SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE), ...(smallModel ? { smallModel } : {}) };
}

export function createWebActivities(options: { anthropic: Anthropic; settings?: WebToolSettings; resultsDir?: string }) {
  const cache = new PageCache(webToolLimits.cacheTtlMs, webToolLimits.cacheEntries);
  const webFetch = createWebFetch({
    anthropic: options.anthropic,
    smallModel: resolveModelAlias(options.settings?.smallModel ?? 'haiku'),
    cache,
    policy: {
      allowance: options.settings?.allowPrivateAddresses ?? noPrivateAddresses,
      timeoutMs: webToolLimits.fetchTimeoutMs,
      maxBytes: webToolLimits.maxResponseBytes,
      maxRedirects: webToolLimits.maxRedirects,
      maxUrlChars: webToolLimits.maxUrlChars,
    },
  });
  const webSearch = createWebSearch(options.anthropic);
  // Fetches and model calls wait on the network: a timer keeps heartbeating (and lets cancellation arrive) meanwhile.
  const run = async (name: 'WebFetch' | 'WebSearch', runner: typeof webFetch, input: WebToolCallInput): Promise<ToolCallResult> => {
    const context = Context.current();
    const env: ToolEnv = {
      signal: context.cancellationSignal,
      heartbeat: (details?: unknown) => context.heartbeat(details),
      ...(options.resultsDir !== undefined ? { resultsDir: options.resultsDir } : {}),
    };
    const timer = setInterval(() => context.heartbeat(), 5000);
    try {
      const result = await runner(input, env);
      // A cancelled call reports the cancellation, not a result, so the workflow's cancelled turn sees it as such.
      if (context.cancellationSignal.aborted) throw new CancelledFailure(`${name} was cancelled`);
      return result;
    } finally {
      clearInterval(timer);
    }
  };
  return {
    WebFetch: (input: WebToolCallInput): Promise<ToolCallResult> => run('WebFetch', webFetch, input),
    WebSearch: (input: WebToolCallInput): Promise<ToolCallResult> => run('WebSearch', webSearch, input),
  };
}
