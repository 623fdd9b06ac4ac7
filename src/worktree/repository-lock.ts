/** Serialises git commands that write shared repository files within this process. */

const tails = new Map<string, Promise<unknown>>();

/** Runs `work` after earlier calls with the same key settle: git fails at once on a taken `.git/config.lock`. */
export async function withRepositoryLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(work);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
