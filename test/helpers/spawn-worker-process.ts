// A worker in its own process (tsx, test/helpers/worker-process.ts), started and killed by a test or
// a benchmark. No vitest import: benchmarks use it too.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { endWithThisProcess } from './end-with-this-process';

export interface ChildWorker {
  process: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnWorkerProcess(options: {
  address: string;
  taskQueue: string;
  modelBaseUrl: string;
  bundlePath: string;
}): Promise<ChildWorker> {
  return spawnReadyProcess(path.join(import.meta.dirname, 'worker-process.ts'), {
    TEMPORAL_ADDRESS: options.address,
    SUBAGENTS_TASK_QUEUE: options.taskQueue,
    ANTHROPIC_BASE_URL: options.modelBaseUrl,
    WORKFLOW_BUNDLE_PATH: options.bundlePath,
  });
}

/**
 * Runs `script` with tsx in a process of its own, with `env` added to this process's environment, and
 * resolves once it prints `worker-ready` (a worker polling): e.g. bench:scale's bare-SDK worker
 * (bench/helpers/bare-worker-process.ts), started as the agent's worker is.
 */
export async function spawnReadyProcess(script: string, env: Record<string, string>): Promise<ChildWorker> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A worker left behind by an interrupted run would keep polling (and holding its tasks) for nobody.
  endWithThisProcess(child, 2000);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker-ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${path.basename(script)} exited early (code ${code})`)));
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
