// The model server's request log, moved into this process as it grows: `requests()` copies the
// whole log, so it is drained (copied, then cleared, in one synchronous step) every 100 ms instead.
import type { ModelServer, RecordedRequest } from '../../src/model-server/server';

/** One /v1/messages request of an agent, as the model server received it. */
export interface AgentRequest {
  seq: number;
  agentId: string;
  /** Assistant messages in the request = the scripted turn it asks for. */
  turnIndex: number;
  receivedAt: number;
  rawBody: string;
}

export class RequestLog {
  private readonly byAgent = new Map<string, AgentRequest[]>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly server: ModelServer) {
    this.timer = setInterval(() => this.drain(), 100);
  }

  /**
   * Takes what the server logged since the last drain. A record is complete (agent, turn, body)
   * once logged: the server fills those in before its first await. Only the response status is
   * filled in later, and is not used.
   */
  drain(): void {
    const fresh: RecordedRequest[] = this.server.requests();
    this.server.clearRequests();
    for (const request of fresh) {
      const agentId = request.headers['x-subagents-agent-id'];
      if (request.path !== '/v1/messages' || !agentId || request.turnIndex === undefined) continue;
      const list = this.byAgent.get(agentId) ?? [];
      list.push({
        seq: request.seq,
        agentId,
        turnIndex: request.turnIndex,
        receivedAt: request.receivedAt,
        rawBody: request.rawBody,
      });
      this.byAgent.set(agentId, list);
    }
  }

  /** The agent's requests in arrival order. */
  of(agentId: string): AgentRequest[] {
    this.drain();
    return [...(this.byAgent.get(agentId) ?? [])];
  }

  close(): void {
    clearInterval(this.timer);
    this.drain();
  }
}
