// bench:rewind's waits (bench/helpers/rewind-times.ts) on a real model server: they count an agent's requests without
// copying the server's log. `requests()` clones every recorded body; polled every 20 ms during a 100-turn agent, those
// copies took the thread the worker shares and made the polled agent's turns 2-4x slower than the same turns unpolled.
import { afterEach, describe, expect, it } from 'vitest';
import { arrivedRequests, untilWaiting } from '../../../bench/helpers/rewind-times';
import type { ModelServer } from '../../../src/model-server/server';
import { clientFor, scriptedDefault, startTestServer } from '../../model-server/helpers';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The server with its log-copying `requests()` counted. */
function counted(real: ModelServer): { server: ModelServer; copies: () => number } {
  let copies = 0;
  return {
    server: {
      ...real,
      requests: () => {
        copies += 1;
        return real.requests();
      },
    },
    copies: () => copies,
  };
}

const ask = (agentId: string) =>
  clientFor(server!, { headers: { 'x-subagents-agent-id': agentId } }).messages.create({
    model: 'claude-test-tiny',
    max_tokens: 64,
    messages: [{ role: 'user', content: `hello from ${agentId}` }],
  });

describe("bench:rewind's waits", () => {
  it('count the requests of one agent, from the served report', async () => {
    ({ server } = await startTestServer(scriptedDefault([{ text: 'hi' }])));
    await ask('rewound');
    await ask('rewound');
    await ask('other');
    expect(arrivedRequests(server, 'rewound')).toBe(2);
    expect(arrivedRequests(server, 'other')).toBe(1);
    expect(arrivedRequests(server, 'never')).toBe(0);
    expect(arrivedRequests(server, '__proto__')).toBe(0);
  });

  it('copy the log once or twice per wait, however long the wait', async () => {
    ({ server } = await startTestServer(scriptedDefault([{ text: 'hi' }])));
    const { server: watched, copies } = counted(server);
    await ask('rewound');
    const waiting = untilWaiting(watched, 'rewound', 3);
    // The wait goes on through two more requests, a few hundred ms apart (its old loop copied the log every 20 ms).
    for (let index = 0; index < 2; index++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await ask('rewound');
    }
    await waiting;
    expect(copies()).toBeGreaterThanOrEqual(1);
    // One copy once the third request arrived; a second if its answer was still on its way then.
    expect(copies()).toBeLessThanOrEqual(3);
  });
});
