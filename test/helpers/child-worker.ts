import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';

/** A worker in its own process (tsx), started and killed by the test. */
export interface ChildWorker {
  process: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startChildWorker(options: { taskQueue: string; modelBaseUrl: string }): Promise<ChildWorker> {
  const script = path.join(import.meta.dirname, 'worker-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      SUBAGENTS_TASK_QUEUE: options.taskQueue,
      ANTHROPIC_BASE_URL: options.modelBaseUrl,
      WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker-ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker process exited early (code ${code})`)));
  });
  return {
    process: child,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}

/** Polls until the predicate holds (bounded), for waiting on external effects. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 60_000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
