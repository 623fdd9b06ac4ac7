/** Dispatches a request to the current behaviour. */
import { textReply, type BehaviourResult } from './behaviour-result';
import { compactionReply } from './compaction';
import type { RequestContext } from './request-types';
import { demoReply } from './demo';
import type { Behaviour } from './scenario-schema';
import { scriptedReply } from './scripted';

/** The echo behaviour: the latest user text back, as a smoke test of the wire. */
function echoReply(context: RequestContext): BehaviourResult {
  const text = context.latestUserText === '' ? '[no user text]' : context.latestUserText;
  return { reply: textReply(text), agentKey: context.agentId ?? 'echo', turnIndex: context.turnIndex };
}

export function replyFor(behaviour: Behaviour, context: RequestContext): BehaviourResult {
  if (context.compaction) return compactionReply(context);
  switch (behaviour.kind) {
    case 'scripted':
      return scriptedReply(behaviour.scenario, context);
    case 'demo':
      return demoReply(context);
    case 'echo':
      return echoReply(context);
  }
}
