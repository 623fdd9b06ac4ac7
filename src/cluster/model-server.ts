import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until a model server answers HTTP at `url` (any status: it is up). */
export async function waitForModelServer(url: string, alive: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error(`The model server for ${url} exited while starting.`);
    try {
      await fetch(`${url}/_control/requests`);
      return;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`The model server at ${url} did not answer within ${timeoutMs / 1000} s.`);
      await sleep(200);
    }
  }
}
