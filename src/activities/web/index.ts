/** WebFetch and WebSearch as Temporal activities, one activity type each, named like the tool. */
import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { WebToolCallInput } from '../../shared/tools/extra-tool-calls';
import { addTokenUsage, type TokenUsage } from '../../shared/model/messages';
import { resolveModelAlias } from '../../shared/agents/models';
import type { ToolCallResult } from '../../shared/tools/tools';
import { webToolLimits } from '../../shared/tools/web-tool-definitions';
import { chargeBudget } from '../budget-charge';
import type { ToolEnv } from '../tools/tool-env';
import {
  noPrivateAddresses,
  parsePrivateAllowance,
  type PrivateAddressAllowance,
} from '../../shared/policy/address-policy';
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
  return {
    allowPrivateAddresses: parsePrivateAllowance(env.SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE),
    ...(smallModel ? { smallModel } : {}),
  };
}

/** `temporalClient` lets a budgeted tree's tool charge its model calls to the tree's ledger (docs/budgets.md). */
export function createWebActivities(options: {
  anthropic: Anthropic;
  settings?: WebToolSettings;
  resultsDir?: string;
  temporalClient?: Client;
}) {
  const cache = new PageCache(webToolLimits.cacheTtlMs, webToolLimits.cacheEntries);
  const smallModel = resolveModelAlias(options.settings?.smallModel ?? 'haiku');
  const webFetch = createWebFetch({
    anthropic: options.anthropic,
    smallModel,
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
  const run = async (
    name: 'WebFetch' | 'WebSearch',
    runner: typeof webFetch,
    input: WebToolCallInput,
  ): Promise<ToolCallResult> => {
    const context = Context.current();
    let billed: TokenUsage | undefined;
    const env: ToolEnv = {
      signal: context.cancellationSignal,
      heartbeat: (details?: unknown) => context.heartbeat(details),
      ...(options.resultsDir !== undefined ? { resultsDir: options.resultsDir } : {}),
      billed: (usage) => {
        billed = billed ? addTokenUsage(billed, usage) : usage;
      },
    };
    const timer = setInterval(() => context.heartbeat(), 5000);
    let finished = false;
    try {
      const result = await runner(input, env);
      finished = true;
      // A cancelled call reports the cancellation, not a result, so the workflow's cancelled turn sees it as such.
      if (context.cancellationSignal.aborted) throw new CancelledFailure(`${name} was cancelled`);
      return result;
    } finally {
      clearInterval(timer);
      // What this attempt was billed, also when it failed or was cut after an answer; before the workflow hears the end.
      if (input.budget && billed && options.temporalClient) {
        const model = name === 'WebFetch' ? smallModel : input.model;
        await chargeBudget(
          options.temporalClient,
          { budget: input.budget, agentId: input.context.agentId, model },
          context.info.attempt,
          billed,
          { final: finished, toolCalls: 0 },
        );
      }
    }
  };
  return {
    WebFetch: (input: WebToolCallInput): Promise<ToolCallResult> => run('WebFetch', webFetch, input),
    WebSearch: (input: WebToolCallInput): Promise<ToolCallResult> => run('WebSearch', webSearch, input),
  };
}
