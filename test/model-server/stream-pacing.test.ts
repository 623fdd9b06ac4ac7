import { describe, expect, it } from 'vitest';
import { scriptedDefault, serverPerTest, helloRequest } from './helpers';

const servers = serverPerTest();

const request = helloRequest(256);

describe('scripted stream pacing', () => {
  it('eventDelayMs sends the text in deltas spread over time', async () => {
    const started = await servers.start(scriptedDefault([{ text: 'one two three four five six', eventDelayMs: 60 }]));
    const stream = started.client.messages.stream(request);
    const arrivals: { text: string; atMs: number }[] = [];
    const begun = Date.now();
    stream.on('text', (text) => arrivals.push({ text, atMs: Date.now() - begun }));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'one two three four five six' }]);
    expect(arrivals.length).toBe(3);
    // Each delta waits for its own pause, so the last arrives at least two pauses after the first.
    expect(arrivals[2]!.atMs - arrivals[0]!.atMs).toBeGreaterThanOrEqual(100);
  });

  it('stallAfterEvents keeps the connection open after a partial stream until the client aborts', async () => {
    const started = await servers.start(scriptedDefault([{ text: 'never finished text here', stallAfterEvents: 4 }]));
    const controller = new AbortController();
    const stream = started.client.messages.stream(request, { signal: controller.signal });
    const texts: string[] = [];
    const firstText = new Promise<void>((resolve) =>
      stream.on('text', (text) => {
        texts.push(text);
        resolve();
      }),
    );
    const settled = stream.finalMessage().then(
      () => 'finished',
      () => 'failed',
    );
    await firstText;
    const early = await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('still open'), 300))]);
    expect(early).toBe('still open');
    expect(texts).toHaveLength(1);
    controller.abort();
    expect(await settled).toBe('failed');
  });

  it('refuses a stall count that is not a positive integer', async () => {
    const started = await servers.start({ behaviour: { kind: 'echo' } });
    expect(() =>
      started.server.setBehaviour({
        kind: 'scripted',
        scenario: { agents: [], default: [{ text: 'x', stallAfterEvents: 0 }] },
      }),
    ).toThrow(/stallAfterEvents/);
    expect(() =>
      started.server.setBehaviour({
        kind: 'scripted',
        scenario: { agents: [], default: [{ text: 'x', eventDelayMs: -1 }] },
      }),
    ).toThrow(/eventDelayMs/);
  });
});
