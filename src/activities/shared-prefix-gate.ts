// Sibling forks wait for the first writer's response, so they read its cache entry (docs/architecture.md, Spawning).
import { createHash } from 'node:crypto';

/** Called when the first request's response began or it ended; later calls do nothing. */
export type PrefixStarted = () => void;

export class SharedPrefixGate {
  private readonly writing = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs = 10_000) {}

  /** The key of a prefix: a hash of what the request sends before the part that differs. */
  static keyOf(prefix: unknown): string {
    return createHash('sha256').update(JSON.stringify(prefix)).digest('hex');
  }

  /** Waits while another request writes the same prefix; call the returned function when this response begins. */
  async enter(key: string, signal?: AbortSignal): Promise<PrefixStarted> {
    const first = this.writing.get(key);
    if (first) {
      await waitAtMost(first, this.maxWaitMs, signal);
      return () => undefined;
    }
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.writing.set(key, started);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (this.writing.get(key) === started) this.writing.delete(key);
      release();
    };
  }

  /** Prefixes being written now (for tests). */
  get pending(): number {
    return this.writing.size;
  }
}

function waitAtMost(promise: Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener('abort', finish, { once: true });
    void promise.then(finish);
  });
}
