// Bounded waiting and retrying for the chaos suite: the dev server and workers come and go, so
// calls that need them are retried until a deadline instead of failing at the first error.
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentResult } from '../../src/shared/agents/agent';

export { sleep };

/** Retries `call` until it succeeds or `timeoutMs` passed (then throws its last error, naming `what`). */
export async function retrying<T>(
  what: string,
  call: () => Promise<T>,
  timeoutMs = 90_000,
  isPermanent: (error: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await withTimeout(call(), Math.max(1000, Math.min(30_000, deadline - Date.now())), what);
    } catch (error) {
      if (isPermanent(error) || Date.now() > deadline) {
        throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      await sleep(500);
    }
  }
}

/** The promise's value, or an error naming `what` after `timeoutMs` (the promise itself is left to settle). */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TimeoutError(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** Seconds with one decimal. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** A run's final result, retried across worker and dev server restarts; 'stuck' after the deadline. */
export async function awaitFinalResult(
  result: () => Promise<AgentResult>,
  timeoutMs: number,
  label: string,
  log: (line: string) => void,
  what: string,
): Promise<{ status: string; result?: AgentResult }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const final = await withTimeout(result(), deadline - Date.now(), what);
      return { status: final.status, result: final };
    } catch (error) {
      if (error instanceof WorkflowFailedError) return { status: `failed: ${error.cause?.message ?? error.message}` };
      if (error instanceof TimeoutError) break;
      log(`${label} waiting for the result: ${error instanceof Error ? error.message : String(error)}; retrying`);
      await sleep(1000);
    }
  }
  return { status: 'stuck' };
}
