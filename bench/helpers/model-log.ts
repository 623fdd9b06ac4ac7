// Reading the local model server's request log by agent (the runtime sends x-subagents-agent-id on every call).
import type { ModelServer, RecordedRequest } from '../../src/model-server/server';

const agentOf = (request: RecordedRequest): string | undefined =>
  request.path === '/v1/messages' ? request.headers['x-subagents-agent-id'] : undefined;

/** Answered (200) /v1/messages requests, grouped by agentId, in arrival order. */
export function requestsByAgent(modelServer: ModelServer): Map<string, RecordedRequest[]> {
  const byAgent = new Map<string, RecordedRequest[]>();
  for (const request of modelServer.requests()) {
    const agentId = agentOf(request);
    if (!agentId || request.status !== 200) continue;
    const list = byAgent.get(agentId) ?? [];
    list.push(request);
    byAgent.set(agentId, list);
  }
  return byAgent;
}

/** When each agent's first model request arrived (server clock), answered yet or not; undefined for agents that made none. */
export function firstRequestAt(modelServer: ModelServer, agentIds: readonly string[]): (number | undefined)[] {
  const first = new Map<string, number>();
  for (const request of modelServer.requests()) {
    const agentId = agentOf(request);
    if (agentId && !first.has(agentId)) first.set(agentId, request.receivedAt);
  }
  return agentIds.map((agentId) => first.get(agentId));
}

/** One agent's /v1/messages requests in the log, answered yet or not, in arrival order. */
export function requestsOf(modelServer: ModelServer, agentId: string): RecordedRequest[] {
  return modelServer.requests().filter((request) => agentOf(request) === agentId);
}

/** Agents with at least one /v1/messages request in the log, answered yet or not. */
export function agentsThatCalled(modelServer: ModelServer): Set<string> {
  const agents = new Set<string>();
  for (const request of modelServer.requests()) {
    const agentId = agentOf(request);
    if (agentId) agents.add(agentId);
  }
  return agents;
}
