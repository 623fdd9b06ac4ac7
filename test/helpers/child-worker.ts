import { inject } from 'vitest';
import { spawnWorkerProcess, type ChildWorker } from './spawn-worker-process';

export type { ChildWorker };

/** A worker in its own process (tsx) on the test server, started and killed by the test. */
export function startChildWorker(options: { taskQueue: string; modelBaseUrl: string }): Promise<ChildWorker> {
  return spawnWorkerProcess({
    ...options,
    address: inject('temporalAddress'),
    bundlePath: inject('workflowBundlePath'),
  });
}

/** Polls until the predicate holds (bounded), for waiting on external effects. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  what = 'condition',
): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
