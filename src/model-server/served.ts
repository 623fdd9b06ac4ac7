// What each messages request served, as the API bills it: input once message_start is out, output so far.
import { deltaOutputTokens } from '../shared/model/streamed-output-tokens';
import { agentHeaderNames, decodeHeaderValue } from '../shared/model/agent-headers';
import type { ApiUsage } from './reply';
import type { RecordedRequest, ServedUsage } from './server-state';

export type { ServedUsage } from './server-state';
import type { SseEvent } from './sse';
import { isRecord } from './tokens';

/** Token totals over a set of messages requests. */
export interface ServedTotals {
  requests: number;
  inputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** `GET /_control/usage`: totals, and the same per `x-subagents-agent-id` (requests without it count in the totals only). */
export interface ServedReport extends ServedTotals {
  byAgent: Record<string, ServedTotals>;
}

export const nothingServed = (): ServedUsage => ({
  inputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
  outputTokens: 0,
  complete: false,
});

/** The response started (message_start, or the JSON body's first bytes): its input is billed. */
export function serveInput(served: ServedUsage, usage: ApiUsage): void {
  served.inputTokens = usage.input_tokens;
  served.cacheCreationInputTokens = usage.cache_creation_input_tokens;
  served.cacheReadInputTokens = usage.cache_read_input_tokens;
}

/** The whole reply went out: the reply's usage is billed. */
export function serveWhole(served: ServedUsage, usage: ApiUsage): void {
  serveInput(served, usage);
  served.outputTokens = usage.output_tokens;
  served.complete = true;
}

/** Accounts one server-sent event just written to the client. */
export function serveEvent(served: ServedUsage, event: SseEvent, usage: ApiUsage): void {
  if (event.event === 'message_start') serveInput(served, usage);
  else if (event.event === 'message_delta') serveWhole(served, usage);
  else if (event.event === 'content_block_delta' && !served.complete) {
    const delta = event.data.delta;
    if (isRecord(delta) && typeof delta.type === 'string')
      served.outputTokens += deltaOutputTokens({ ...delta, type: delta.type });
  }
}

const noTotals = (): ServedTotals => ({
  requests: 0,
  inputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
});

function addServed(totals: ServedTotals, served: ServedUsage): void {
  totals.requests += 1;
  totals.inputTokens += served.inputTokens;
  totals.cacheCreationInputTokens += served.cacheCreationInputTokens;
  totals.cacheReadInputTokens += served.cacheReadInputTokens;
  totals.outputTokens += served.outputTokens;
  totals.totalTokens +=
    served.inputTokens + served.cacheCreationInputTokens + served.cacheReadInputTokens + served.outputTokens;
}

/** Sums the `served` records of the log's messages requests, in all and per agent. */
export function servedReport(log: readonly RecordedRequest[]): ServedReport {
  const totals = noTotals();
  const byAgent = new Map<string, ServedTotals>();
  for (const record of log) {
    if (!record.served) continue;
    addServed(totals, record.served);
    const header = record.headers[agentHeaderNames.id];
    if (header === undefined) continue;
    const agentId = decodeHeaderValue(header);
    const agentTotals = byAgent.get(agentId) ?? noTotals();
    addServed(agentTotals, record.served);
    byAgent.set(agentId, agentTotals);
  }
  // fromEntries defines own properties, so an id like "__proto__" stays an ordinary key.
  return { ...totals, byAgent: Object.fromEntries(byAgent) };
}
