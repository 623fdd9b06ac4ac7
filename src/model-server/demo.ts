/**
 * The demo behaviour: deterministic, and it really uses the tools in the request (Glob, Grep, Read,
 * Agent), deciding each step from the conversation so far. It never names a tool it was not offered
 * and always finishes within a bounded number of turns.
 */
import type { BehaviourResult } from './behaviour-result';
import type { RequestContext } from './request-types';
import { exploreStep } from './demo-explore';
import { rootStep } from './demo-root';

export function demoReply(context: RequestContext): BehaviourResult {
  const agentKey = context.agentId ?? `demo:${context.agentType ?? 'root'}`;
  const reply = context.agentType === 'Explore' ? exploreStep(context, agentKey) : rootStep(context, agentKey);
  return { reply, agentKey, turnIndex: context.turnIndex };
}
