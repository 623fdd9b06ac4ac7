import type { Client } from '@temporalio/client';
import { statusQuery } from '../shared/protocol/definitions';
import { peekOf, type AgentPeek } from '../shared/protocol/peek';

/** How long one child may take to answer its status query before the peek reports it as unreadable. */
const peekQueryTimeoutMs = 10_000;

/** Creates `peekAgents` (TaskOutput): running agents' status by query, so no child history grows. */
export function createPeekActivities(temporalClient: Client) {
  async function peekOne(agentId: string): Promise<AgentPeek> {
    try {
      const status = await temporalClient.withDeadline(Date.now() + peekQueryTimeoutMs, () =>
        temporalClient.workflow.getHandle(agentId).query(statusQuery),
      );
      return peekOf(status);
    } catch (error) {
      return { agentId, error: (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300) };
    }
  }

  return {
    async peekAgents(input: { agentIds: string[] }): Promise<AgentPeek[]> {
      return Promise.all(input.agentIds.slice(0, 50).map(peekOne));
    },
  };
}
