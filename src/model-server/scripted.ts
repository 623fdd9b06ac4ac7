/** The scripted behaviour: pick the scenario entry for the agent, then its turn by index. */
import type { BehaviourResult } from './behaviour-result';
import { textReply } from './behaviour-result';
import { boardWorkerStep } from './board-worker';
import { substituteDeep, substitutePlaceholders } from './conversation';
import type { RequestContext } from './request-types';
import { serverToolUseId, thinkingSignature, toolUseId } from './ids';
import { defaultSearchFixture, searchResultContent, webSearchToolOf, type FixturePage } from './web-search';
import type { OutputBlock } from './reply';
import type { AgentMatch, Scenario, Turn } from './scenario-schema';

/** True when every field the match sets agrees with the request (an empty match matches everything). */
export function matchesAgent(match: AgentMatch, context: RequestContext): boolean {
  return (
    (match.agentId === undefined || match.agentId === context.agentId) &&
    (match.agentType === undefined || match.agentType === context.agentType) &&
    (match.agentName === undefined || match.agentName === context.agentName) &&
    (match.systemIncludes === undefined || context.systemText.includes(match.systemIncludes)) &&
    (match.userIncludes === undefined || context.latestUserText.includes(match.userIncludes))
  );
}

/** The turn's web searches, answered from the fixture as the API's server tool would (or a note when the request offers no web_search tool). */
function renderSearches(
  turn: Turn,
  context: RequestContext,
  agentKey: string,
  pages: readonly FixturePage[],
  content: OutputBlock[],
): void {
  const searches = turn.serverToolUses ?? [];
  if (searches.length === 0) return;
  const tool = webSearchToolOf(context.request.tools);
  if (!tool) {
    content.push({
      type: 'text',
      text: '[scenario error: the turn searches the web, but the request offers no web_search tool]',
    });
    return;
  }
  searches.forEach((search, index) => {
    const id = serverToolUseId(agentKey, context.turnIndex, content.length);
    const query = substitutePlaceholders(search.input.query, context);
    content.push({ type: 'server_tool_use', id, name: 'web_search', input: { query } });
    content.push({
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: searchResultContent(pages, query, tool, index),
    });
  });
}

function renderTurn(
  turn: Turn,
  context: RequestContext,
  agentKey: string,
  pages: readonly FixturePage[],
): BehaviourResult['reply'] {
  const content: OutputBlock[] = [];
  if (turn.thinking !== undefined) {
    const thinking = substitutePlaceholders(turn.thinking, context);
    content.push({ type: 'thinking', thinking, signature: thinkingSignature(thinking) });
  }
  renderSearches(turn, context, agentKey, pages, content);
  if (turn.text !== undefined) content.push({ type: 'text', text: substitutePlaceholders(turn.text, context) });
  for (const toolUse of turn.toolUses ?? []) {
    content.push({
      type: 'tool_use',
      id: toolUse.id ?? toolUseId(agentKey, context.turnIndex, content.length),
      name: toolUse.name,
      input: substituteDeep(toolUse.input, context) as Record<string, unknown>,
    });
  }
  const stopReason = turn.stopReason ?? ((turn.toolUses?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
  return { content, stopReason };
}

/** Answers from the scenario; stateless: the turn is the number of assistant messages in the request. */
export function scriptedReply(scenario: Scenario, context: RequestContext): BehaviourResult {
  const entryIndex = scenario.agents.findIndex((entry) => matchesAgent(entry.match, context));
  const entry = scenario.agents[entryIndex];
  const turnIndex = context.turnIndex - (entry?.turnOffset ?? 0);
  const agentKey = context.agentId ?? (entry ? `agents.${entryIndex}` : 'default');
  if (entry?.boardWorker) {
    const step = boardWorkerStep(entry.boardWorker, context, agentKey);
    return {
      reply: step.reply,
      agentKey,
      turnIndex: context.turnIndex,
      ...(step.delayMs ? { delayMs: step.delayMs } : {}),
    };
  }
  const turns = entry?.turns ?? scenario.default;
  if (!turns) return { reply: textReply('[no scenario entry matched]'), agentKey, turnIndex };
  const turn = turnIndex >= 0 ? turns[turnIndex] : undefined;
  if (!turn)
    return { reply: textReply(`[scenario exhausted: ${agentKey} has no turn ${turnIndex}]`), agentKey, turnIndex };
  const result: BehaviourResult = {
    reply: renderTurn(turn, { ...context, turnIndex }, agentKey, scenario.webSearchPages ?? defaultSearchFixture),
    agentKey,
    turnIndex,
  };
  if (turn.delayMs !== undefined) result.delayMs = turn.delayMs;
  if (turn.eventDelayMs !== undefined) result.eventDelayMs = turn.eventDelayMs;
  if (turn.stallAfterEvents !== undefined) result.stallAfterEvents = turn.stallAfterEvents;
  if (turn.fault) result.fault = turn.fault;
  return result;
}
