// A worker in its own process (tsx, test/helpers/worker-process.ts), started and killed by a test or
// a benchmark. No vitest import: benchmarks use it too.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface ChildWorker {
  process: ChildProcess;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnWorkerProcess(options: { address: string; taskQueue: string; modelBaseUrl: string; bundlePath: string }): Promise<ChildWorker> {
  const script = path.join(import.meta.dirname, 'worker-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.address,
      SUBAGENTS_TASK_QUEUE: options.taskQueue,
      ANTHROPIC_BASE_URL: options.modelBaseUrl,
      WORKFLOW_BUNDLE_PATH: options.bundlePath,
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
