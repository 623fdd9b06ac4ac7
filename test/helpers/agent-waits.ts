/** Waits on agents: a live state, a closed workflow, a completed run (a workflow not started yet counts as not there). */
import { expect } from 'vitest';
import type { AgentHandle, SubagentsClient } from '../../src/client/client';
import type { AgentResult, AgentStatusSnapshot } from '../../src/shared/agents/agent';
import type { AgentTestEnv } from './agent-env';
import { waitFor } from './child-worker';

/** Anything that holds a client on the test queue: a test environment, a crash harness's parts. */
type Parts = { client: SubagentsClient };

/** The agent's status, or undefined while its workflow does not exist yet. */
const statusOf = (parts: Parts, agentId: string): Promise<AgentStatusSnapshot | undefined> =>
  parts.client
    .getAgent(agentId)
    .status()
    .catch(() => undefined);

/** Polls until the agent reports this state (its workflow may not exist at first). */
export async function waitForState(
  parts: Parts,
  agentId: string,
  state: AgentStatusSnapshot['state'],
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(async () => (await statusOf(parts, agentId))?.state === state, timeoutMs, what);
}

/** Polls (up to a minute) until the agent's workflow has closed with this status (CANCELLED, COMPLETED ...). */
export async function waitForClosed(parts: Parts, agentId: string, statusName: string, what: string): Promise<void> {
  await waitFor(async () => (await parts.client.getAgent(agentId).describe()).status.name === statusName, 60_000, what);
}

/** Starts an agent and waits for its result, which must say completed. */
export async function runCompleted(
  env: AgentTestEnv,
  options: Parameters<AgentTestEnv['start']>[0],
): Promise<{ handle: AgentHandle; result: AgentResult }> {
  const handle = await env.start(options);
  const result = await handle.result();
  expect(result.status, `the run of ${options.name ?? options.prompt} ends completed`).toBe('completed');
  return { handle, result };
}

/** Polls (up to a minute) until the agent's status lists this tool among the ones running. */
export async function waitForTool(parts: Parts, agentId: string, tool: string, what: string): Promise<void> {
  await waitFor(async () => (await statusOf(parts, agentId))?.currentTools.includes(tool) ?? false, 60_000, what);
}
