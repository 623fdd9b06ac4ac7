import { defineSearchAttributeKey } from '@temporalio/common';

/** Search attributes every agent workflow carries (registered on the dev server by `subagents dev`). */
export const agentTypeKey = defineSearchAttributeKey('AgentType', 'KEYWORD');
export const parentAgentIdKey = defineSearchAttributeKey('ParentAgentId', 'KEYWORD');
export const rootAgentIdKey = defineSearchAttributeKey('RootAgentId', 'KEYWORD');
export const agentDepthKey = defineSearchAttributeKey('AgentDepth', 'INT');

/** Name → CLI type, as `temporal server start-dev --search-attribute NAME=Type` wants them. */
export const searchAttributeRegistrations: Record<string, 'Keyword' | 'Int'> = {
  AgentType: 'Keyword',
  ParentAgentId: 'Keyword',
  RootAgentId: 'Keyword',
  AgentDepth: 'Int',
};
