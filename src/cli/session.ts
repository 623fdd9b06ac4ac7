import { type AgentHandle, SubagentsClient } from '../client/client';
import type { AgentResult } from '../shared/agents/agent';
import { formatProgress, stderrColor } from './format';
import { connectTemporal, withAgentSession } from './temporal-session';

/** How a CLI command reaches Temporal and the agents on it: connecting, finding one agent, following one. */

/** Connects to Temporal from the environment; an unreachable server is a clear error with exit code 3. */
export async function connect(): Promise<SubagentsClient> {
  const { temporal, connection } = await connectTemporal();
  return new SubagentsClient(temporal, undefined, connection);
}

/** Polls the agent's status, printing a line whenever it changes, until it has a result. */
export async function follow(
  handle: AgentHandle,
  print: (line: string) => void = (line) => console.error(line),
  color: boolean = stderrColor(),
): Promise<AgentResult> {
  const resultPromise = handle.result();
  let done = false;
  void resultPromise
    .finally(() => {
      done = true;
    })
    .catch(() => undefined);
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

/** Runs `run` with an agent's handle; unknown exits 4, finished exits 1 (signals cannot reach a closed workflow). */
export async function withAgent<T>(
  agentId: string | undefined,
  run: (handle: AgentHandle) => Promise<T>,
  verb = 'do',
): Promise<T> {
  return withAgentSession(agentId, (session, id) => run(new SubagentsClient(session.temporal).getAgent(id)), verb);
}
