// The demo behaviour: deterministic, uses only the tools offered, and finishes in a bounded number of turns.
import type { BehaviourResult } from './behaviour-result';
import type { RequestContext } from './request-types';
import { exploreStep } from './demo-explore';
import { rootStep } from './demo-root';

export function demoReply(context: RequestContext): BehaviourResult {
  const agentKey = context.agentId ?? `demo:${context.agentType ?? 'root'}`;
  const reply = context.agentType === 'Explore' ? exploreStep(context, agentKey) : rootStep(context, agentKey);
  return { reply, agentKey, turnIndex: context.turnIndex };
}
