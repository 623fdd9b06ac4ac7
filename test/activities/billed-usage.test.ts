import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it, vi } from 'vitest';
import { BilledUsage } from '../../src/activities/billed-usage';
import type { ServedUsage } from '../../src/model-server/server';
import type { TokenUsage } from '../../src/shared/model/messages';
import { helloRequest, serverPerTest } from '../model-server/helpers';

const servers = serverPerTest();

const request = helloRequest(1024);
// Thinking, multi-byte text and a tool call: every delta kind the rule counts, and one it does not (signature).
const turn = {
  thinking: 'Let me think about ünïcödé.',
  text: 'Réponse: ça marche très bien.',
  toolUses: [{ name: 'Read', input: { file_path: '/tmp/é.txt' } }],
};

/** Streams one call, feeding the tracker as src/activities/model.ts would; aborts after `abortAfterDeltas` deltas. */
async function streamTracked(client: Anthropic, abortAfterDeltas?: number): Promise<BilledUsage> {
  const tracker = new BilledUsage();
  const controller = new AbortController();
  const stream = client.messages.stream(request, { signal: controller.signal });
  let deltas = 0;
  stream.on('streamEvent', (event) => {
    tracker.observe(event);
    if (event.type === 'content_block_delta' && ++deltas === abortAfterDeltas) controller.abort();
  });
  await stream.finalMessage().catch(() => undefined);
  return tracker;
}

const asUsage = (served: ServedUsage | undefined): TokenUsage | undefined =>
  served && {
    inputTokens: served.inputTokens,
    outputTokens: served.outputTokens,
    cacheCreationInputTokens: served.cacheCreationInputTokens,
    cacheReadInputTokens: served.cacheReadInputTokens,
  };

describe('BilledUsage against the local model server', () => {
  it('counts what the server served: a cut stream, an aborted one, a complete one, and a fault before message_start', async () => {
    const started = await servers.start({
      behaviour: { kind: 'scripted', scenario: { agents: [], default: [{ ...turn, eventDelayMs: 100 }] } },
    });
    const server = started.server;
    server.injectFault({ kind: 'stream-cut' });
    const cut = await streamTracked(started.client);
    // Past the thinking block (three thinking deltas and its signature) into the text's first delta.
    const aborted = await streamTracked(started.client, 5);
    await vi.waitFor(() => expect(server.requests()[1]!.abortedAt).toBeDefined());
    const complete = await streamTracked(started.client);
    server.injectFault({ kind: 'overloaded-sse' });
    const refused = await streamTracked(started.client);

    const served = server.requests().map((record) => record.served);
    expect(served.map((record) => record?.complete)).toEqual([false, false, true, false]);
    expect([cut, aborted, complete].map((tracker) => tracker.billed())).toEqual(served.slice(0, 3).map(asUsage));
    // Partial output was counted, and differs from the whole reply's.
    expect(cut.billed()!.outputTokens).toBeGreaterThan(0);
    expect(aborted.billed()!.outputTokens).toBeGreaterThan(cut.billed()!.outputTokens);
    expect(aborted.billed()!.outputTokens).toBeLessThan(complete.billed()!.outputTokens);
    expect(refused.billed()).toBeUndefined();
    expect(served[3]).toMatchObject({ inputTokens: 0, outputTokens: 0 });
  });
});
