import { WorkflowNotFoundError } from '@temporalio/client';
import { type AgentHandle, SubagentsClient } from '../client';
import type { AgentResult } from '../shared/agent';
import { CliError, ExitCode } from './exit-codes';
import { formatProgress } from './format';

/** How a CLI command reaches Temporal and the agents on it: connecting, finding one agent, following one. */

/** Connects to Temporal from the environment; an unreachable server is a clear error with exit code 3. */
export async function connect(): Promise<SubagentsClient> {
  try {
    return await SubagentsClient.connect();
  } catch (error) {
    throw new CliError(
      `Cannot reach Temporal at ${process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233'}: ${(error as Error).message}. Start it with \`subagents dev\`.`,
      ExitCode.unavailable,
    );
  }
}

/** Polls the agent's status, printing a line whenever it changes, until it has a result. */
export async function follow(handle: AgentHandle, print: (line: string) => void = (line) => console.error(line)): Promise<AgentResult> {
  const resultPromise = handle.result();
  let done = false;
  void resultPromise.finally(() => {
    done = true;
  }).catch(() => undefined);
  let previous = '';
  while (!done) {
    try {
      const line = formatProgress(await handle.status());
      if (line !== previous) print(line);
      previous = line;
    } catch {
      // The status query needs a worker; keep waiting for one.
    }
    await Promise.race([resultPromise.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))]);
  }
  return resultPromise;
}

/** Runs `run` with a handle to one agent; an unknown agentId is a clear error with exit code 4. */
export async function withAgent<T>(agentId: string | undefined, run: (handle: AgentHandle) => Promise<T>): Promise<T> {
  if (!agentId) throw new CliError('Give an agentId (see `subagents ls`).');
  const client = await connect();
  try {
    return await run(client.getAgent(agentId));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
    throw error;
  } finally {
    await client.close();
  }
}
