/** Runs the real `subagents` CLI in its own process against a test environment's server and queue. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AgentTestEnv } from './agent-env';

const cli = path.join(import.meta.dirname, '..', '..', 'bin', 'subagents.js');

/** What the CLI process ended with. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `subagents <args>` on the environment's server and task queue; resolves with its exit code and output (never rejects). */
export async function runCli(
  env: AgentTestEnv,
  args: string[],
  options: { extraEnv?: Record<string, string>; cwd?: string } = {},
): Promise<CliRun> {
  const cliEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: env.temporal.address,
    SUBAGENTS_TASK_QUEUE: env.taskQueue,
    ...options.extraEnv,
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, ...args], {
      env: cliEnv,
      encoding: 'utf8',
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliRun;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
