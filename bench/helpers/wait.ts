// Bounded waiting for benchmarks: a bench that does not complete fails with what it was waiting for.
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until the predicate holds, or throws after `timeoutMs` naming `what`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}.`);
    await sleep(intervalMs);
  }
}

/** The promise's value, or an error naming `what` after `timeoutMs`. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}.`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds with one decimal, for tables and JSON. */
export const ms = (value: number): number => Math.round(value * 10) / 10;
