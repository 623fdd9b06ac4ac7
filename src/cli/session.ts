import { WorkflowNotFoundError } from '@temporalio/client';
import { type AgentHandle, SubagentsClient } from '../client';
import { loadTemporalConnectionConfig } from '../connection-config';
import type { AgentResult } from '../shared/agent';
import { CliError, ExitCode } from './exit-codes';
import { formatProgress, stderrColor } from './format';
import { describeTemporalTarget } from './temporal-target';

/** How a CLI command reaches Temporal and the agents on it: connecting, finding one agent, following one. */

/** Connects to Temporal from the environment; an unreachable server is a clear error with exit code 3. */
export async function connect(): Promise<SubagentsClient> {
  try {
    loadTemporalConnectionConfig();
  } catch (error) {
    // A bad TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE is the user's to fix, not an outage.
    throw new CliError((error as Error).message, ExitCode.usage);
  }
  try {
    return await SubagentsClient.connect();
  } catch (error) {
    throw new CliError(
      `Cannot reach Temporal at ${describeTemporalTarget()}: ${(error as Error).message.split('\n')[0]}. Start it with \`subagents dev\`, or set TEMPORAL_ADDRESS.`,
      ExitCode.unavailable,
    );
  }
}

/** Polls the agent's status, printing a line whenever it changes, until it has a result. */
export async function follow(
  handle: AgentHandle,
  print: (line: string) => void = (line) => console.error(line),
  color: boolean = stderrColor(),
): Promise<AgentResult> {
  const resultPromise = handle.result();
  let done = false;
  void resultPromise.finally(() => {
    done = true;
  }).catch(() => undefined);
  let previous = '';
  while (!done) {
    try {
      const line = formatProgress(await handle.status(), color);
      if (line !== previous) print(line);
      previous = line;
    } catch {
      // The status query needs a worker; keep waiting for one.
    }
    await Promise.race([resultPromise.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 500))]);
  }
  return resultPromise;
}

/**
 * Runs `run` with a handle to one agent. An unknown agentId is a clear error with exit code 4; an
 * agent that exists but has already finished is said to be finished (exit code 1), with what it
 * ended as — signals cannot reach a closed workflow.
 */
export async function withAgent<T>(agentId: string | undefined, run: (handle: AgentHandle) => Promise<T>, verb = 'do'): Promise<T> {
  if (!agentId) throw new CliError('Give an agentId (see `subagents ls`).');
  const client = await connect();
  try {
    return await run(client.getAgent(agentId));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      const closed = await closedStatusOf(client, agentId);
      if (closed) throw new AgentAlreadyFinished(agentId, closed, verb);
      throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
    }
    throw error;
  } finally {
    await client.close();
  }
}

/** The agent exists but its workflow has closed. */
export class AgentAlreadyFinished extends CliError {
  constructor(
    readonly agentId: string,
    readonly status: string,
    verb: string,
  ) {
    super(`Agent ${agentId} has already finished (${status.toLowerCase()}); there is nothing to ${verb}. See: subagents status ${agentId}`, ExitCode.agentUnsuccessful);
  }
}

/** The status of a closed agent workflow (COMPLETED, FAILED, CANCELLED, …), or undefined when it runs or does not exist. */
export async function closedStatusOf(client: SubagentsClient, agentId: string): Promise<string | undefined> {
  try {
    const status = (await client.getAgent(agentId).describe()).status.name;
    return status === 'RUNNING' ? undefined : status;
  } catch {
    return undefined;
  }
}
