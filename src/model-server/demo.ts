// The demo behaviour: deterministic, uses only the tools offered, and finishes in a bounded number of turns.
import type { BehaviourResult } from './behaviour-result';
import type { RequestContext } from './request-types';
import { firstUserText } from './demo-history';
import { exploreStep } from './demo-explore';
import { reviewRole, reviewStep } from './demo-review-agents';
import { rootStep } from './demo-root';
import { wantsWorkflow, workflowLeadStep } from './demo-workflow-lead';
import type { ModelReply } from './reply';

export function demoReply(context: RequestContext): BehaviourResult {
  const agentKey = context.agentId ?? `demo:${context.agentType ?? 'root'}`;
  return { reply: demoStep(context, agentKey), agentKey, turnIndex: context.turnIndex };
}

/** Who the agent is decides the step: a workflow's lead, an agent a review script started, Explore, or the root. */
function demoStep(context: RequestContext, agentKey: string): ModelReply {
  if (wantsWorkflow(context)) return workflowLeadStep(context, agentKey);
  // A script's prompts name the role whatever agent type the script chose (its readers are Explore agents).
  const role = reviewRole(firstUserText(context));
  if (role) return reviewStep(role, context, agentKey);
  return context.agentType === 'Explore' ? exploreStep(context, agentKey) : rootStep(context, agentKey);
}
