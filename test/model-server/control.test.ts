import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { modelServerControl } from '../../src/model-server/control-client';
import { postRaw, scriptedDefault, serverPerTest } from './helpers';

const servers = serverPerTest();

const system = [
  {
    type: 'text' as const,
    text: Array.from({ length: 200 }, (_, index) => `word${index}`).join(' '),
    cache_control: { type: 'ephemeral' as const },
  },
];
const request = {
  model: 'claude-test-tiny',
  max_tokens: 64,
  system,
  messages: [{ role: 'user' as const, content: 'ping me' }],
};

describe('control endpoints', () => {
  it("switch behaviour, inject faults, list requests and reset, from another process's point of view", async () => {
    const started = await servers.start(scriptedDefault([{ text: 'scripted', fault: { kind: '500' } }]));
    const server = started.server;
    const { client } = started;
    const control = modelServerControl(server.url);

    await expect(client.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect((await client.messages.create(request)).content).toEqual([{ type: 'text', text: 'scripted' }]);

    await control.setBehaviour({ kind: 'echo' });
    const echoed = await client.messages.create(request);
    expect(echoed.content).toEqual([{ type: 'text', text: 'ping me' }]);
    expect(echoed.usage.cache_read_input_tokens).toBeGreaterThan(0);

    await control.injectFault({ kind: '529', times: 1 });
    await expect(client.messages.create(request)).rejects.toMatchObject({ status: 529 });

    const logged = await control.requests();
    expect(logged.map((entry) => entry.status)).toEqual([500, 200, 200, 529]);
    expect(logged.every((entry) => entry.path === '/v1/messages')).toBe(true);
    expect(JSON.parse(logged[0]!.rawBody)).toEqual(request);
    expect(logged[2]!.usage?.cache_read_input_tokens).toBe(echoed.usage.cache_read_input_tokens);

    await control.reset();
    expect(await control.requests()).toEqual([]);
    const afterReset = await client.messages.create(request);
    expect(afterReset.usage.cache_read_input_tokens).toBe(0);

    await control.setBehaviour({
      kind: 'scripted',
      scenario: { agents: [], default: [{ text: 'again', fault: { kind: '500' } }] },
    });
    await control.reset();
    // Reset clears the scripted-fault counters too: the turn's fault fires again.
    await expect(client.messages.create(request)).rejects.toBeInstanceOf(Anthropic.InternalServerError);
  });

  it('reports invalid control bodies and unknown control paths', async () => {
    const server = (await servers.start()).server;
    const control = modelServerControl(server.url);
    await expect(control.setBehaviour({ kind: 'nonsense' } as never)).rejects.toThrow(/400.*kind/);
    await expect(control.injectFault({ kind: '418' } as never)).rejects.toThrow(/400.*kind/);
    const unknown = await postRaw(server, '/_control/nothing', '{}');
    expect(unknown.status).toBe(404);
    const notJson = await postRaw(server, '/_control/faults', 'not json');
    expect(notJson.status).toBe(400);
    expect(server.requests()).toEqual([]);
  });
});
