// In-place rewinds of a running agent, timed from the rewind() call to the update's answer and to the agent's next
// model request. The agent is in a long Bash when each rewind comes, so the time includes cancelling that command.
import type { AgentHandle } from '../../src/client/client';
import type { ModelServer } from '../../src/model-server/server';
import { requestsOf } from './model-log';
import { waitFor } from './wait';

/** One in-place rewind. */
export interface RewindTiming {
  turn: number;
  files: boolean;
  /** rewind() call → the update's answer (the conversation, children, board and files are back). */
  answeredMs: number;
  /** rewind() call → the agent's next model request arrived. */
  nextRequestMs: number;
  droppedTurns: number;
  restoredFiles: number;
}

/**
 * How many messages requests of the agent have arrived, counted without copying the log: `requests()` clones every
 * recorded body (tens of MB once a few 100-turn agents ran), and polled every 20 ms those copies took the thread the
 * worker and the model server share, which made the polled agent's turns 4x slower ("after a rewind").
 */
export function arrivedRequests(modelServer: Pick<ModelServer, 'usage'>, agentId: string): number {
  const { byAgent } = modelServer.usage();
  return Object.hasOwn(byAgent, agentId) ? byAgent[agentId]!.requests : 0;
}

/** Waits until the agent has made `count` answered model requests and its last turn's tool has had time to start. */
export async function untilWaiting(modelServer: ModelServer, agentId: string, count: number): Promise<void> {
  await waitFor(() => arrivedRequests(modelServer, agentId) >= count, 1_800_000, `${agentId}'s request ${count}`, 20);
  // Arrived; answered too (a copy of the log each check, so only a few, once the count is there).
  await waitFor(
    () => requestsOf(modelServer, agentId).filter((request) => request.status === 200).length >= count,
    60_000,
    `the answer to ${agentId}'s request ${count}`,
    100,
  );
  // The answer asked for a Bash: give its activity a moment to start, so the rewind cancels a running command.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Rewinds the running `agent` in place to `turn`; throws when it was not rewound in place. */
export async function timeRewind(
  modelServer: ModelServer,
  agent: AgentHandle,
  turn: number,
  files: boolean,
): Promise<RewindTiming> {
  const before = arrivedRequests(modelServer, agent.agentId);
  const startedAt = Date.now();
  const outcome = await agent.rewind({ turn, ...(files ? { files: true } : {}) });
  const answeredMs = Date.now() - startedAt;
  if (outcome.mode !== 'in-place') throw new Error(`${agent.agentId} was not running: rewound in a new run`);
  await waitFor(
    () => arrivedRequests(modelServer, agent.agentId) > before,
    60_000,
    `${agent.agentId}'s request after the rewind`,
    10,
  );
  const next = requestsOf(modelServer, agent.agentId)[before]!;
  return {
    turn,
    files,
    answeredMs,
    nextRequestMs: next.receivedAt - startedAt,
    droppedTurns: outcome.ack.droppedTurns,
    restoredFiles: outcome.ack.restoredFiles.length,
  };
}
