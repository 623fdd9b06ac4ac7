import { afterAll, beforeAll, inject, vi } from 'vitest';
import { main } from '../../src/cli/main';

/** Runs `subagents <args>` in this process; returns its exit code and what it printed. */
export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  const error = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void err.push(String(line)));
  try {
    const code = await main(args);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** Sets environment variables for the in-process CLI; the function it returns puts back what was there. */
export function setEnvironment(values: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Points the in-process CLI at the test server and this environment's queue for a file's tests (and these more variables). */
export function useCliEnvironment(env: { taskQueue: string }, more: Record<string, string> = {}): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = setEnvironment({
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: 'default',
      SUBAGENTS_TASK_QUEUE: env.taskQueue,
      ...more,
    });
  });
  afterAll(() => restore?.());
}
