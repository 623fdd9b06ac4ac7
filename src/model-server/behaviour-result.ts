/** What every behaviour returns for one request. */
import type { ModelReply } from './reply';
import type { FaultSpec } from './scenario-schema';

export interface BehaviourResult {
  reply: ModelReply;
  /** Identifies the agent for tool_use ids, fault counters and the request log. */
  agentKey: string;
  turnIndex: number;
  /** Wait before responding (scripted `delayMs`). */
  delayMs?: number;
  /** Pause before each event after message_start (scripted `eventDelayMs`). */
  eventDelayMs?: number;
  /** Send this many events, then hold the connection open (scripted `stallAfterEvents`). */
  stallAfterEvents?: number;
  /** A scripted turn's fault, served for its first `times` attempts. */
  fault?: FaultSpec;
}

/** A reply with one text block and `end_turn`. */
export const textReply = (text: string): BehaviourResult['reply'] => ({
  content: [{ type: 'text', text }],
  stopReason: 'end_turn',
});
