import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { createDataConverter } from '../codec/data-converter';
import { connectOptions, loadTemporalConnectionConfig } from '../config/connection-config';
import { CliError, ExitCode } from './exit-codes';
import { describeTemporalTarget } from './temporal-target';

/** A plain Temporal client, so read-only commands start without loading SubagentsClient's definitions, yaml and zod. */
export interface TemporalSession {
  temporal: Client;
  connection: Connection;
  close(): Promise<void>;
}

/** Connects to Temporal from the environment, as SubagentsClient.connect does; a bad profile exits 2, an unreachable server 3. */
export async function connectTemporal(): Promise<TemporalSession> {
  let config: ReturnType<typeof loadTemporalConnectionConfig>;
  try {
    config = loadTemporalConnectionConfig();
  } catch (error) {
    // A bad TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE is the user's to fix, not an outage.
    throw new CliError((error as Error).message, ExitCode.usage);
  }
  try {
    const connection = await Connection.connect(connectOptions(config));
    // The same payload codec as the workers (compression, and encryption when a key is configured).
    const temporal = new Client({ connection, namespace: config.namespace, dataConverter: createDataConverter() });
    return { temporal, connection, close: () => connection.close() };
  } catch (error) {
    throw new CliError(
      `Cannot reach Temporal at ${describeTemporalTarget()}: ${(error as Error).message.split('\n')[0]}. Start it with \`subagents dev\`, or set TEMPORAL_ADDRESS.`,
      ExitCode.unavailable,
    );
  }
}

/** Runs `run` on a session for one agent; unknown exits 4, finished exits 1 (as withAgent). */
export async function withAgentSession<T>(
  agentId: string | undefined,
  run: (session: TemporalSession, agentId: string) => Promise<T>,
  verb = 'do',
): Promise<T> {
  if (!agentId) throw new CliError('Give an agentId (see `subagents ls`).');
  const session = await connectTemporal();
  try {
    return await run(session, agentId);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      const closed = await closedStatusOf(session.temporal, agentId);
      if (closed) throw new AgentAlreadyFinished(agentId, closed, verb);
      throw new CliError(`No agent "${agentId}".`, ExitCode.notFound);
    }
    throw error;
  } finally {
    await session.close();
  }
}

/** The agent exists but its workflow has closed. */
export class AgentAlreadyFinished extends CliError {
  constructor(
    readonly agentId: string,
    readonly status: string,
    verb: string,
  ) {
    super(
      `Agent ${agentId} has already finished (${status.toLowerCase()}); there is nothing to ${verb}. See: subagents status ${agentId}`,
      ExitCode.agentUnsuccessful,
    );
  }
}

/** The status of a closed agent workflow (COMPLETED, FAILED, CANCELLED, …), or undefined when it runs or does not exist. */
export async function closedStatusOf(temporal: Client, agentId: string): Promise<string | undefined> {
  try {
    const status = (await temporal.workflow.getHandle(agentId).describe()).status.name;
    return status === 'RUNNING' ? undefined : status;
  } catch {
    return undefined;
  }
}
