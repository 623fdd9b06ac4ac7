import { rewindToolDefinition } from '../../shared/tools/rewind-tool-definition';
import type { AgentWorkflowInput, ContextSnapshot } from '../../shared/agents/agent';
import { agentToolDefinitions } from '../../shared/tools/agent-tool-definitions';
import { estimateTextTokens } from '../../shared/model/context-estimate';
import { contextWindowOf } from '../../shared/model/context-windows';
import { defaultAgentLimits } from '../../shared/protocol/limits';
import type { ToolDefinition, TokenUsage } from '../../shared/model/messages';
import { taskOutputDefinition } from '../../shared/tools/task-output-definition';
import { toolDefinitions } from '../../shared/tools/tool-definitions';
import type { AgentState } from '../loop/agent-state';

// How full an agent's context is, from recorded results only, so replay-safe (docs/architecture.md, Compaction).

const knownDefinitions: Readonly<Record<string, ToolDefinition>> = {
  ...agentToolDefinitions,
  Rewind: rewindToolDefinition,
  TaskOutput: taskOutputDefinition,
  ...toolDefinitions,
};

/** Estimated tokens of each known tool's definition, worked out once (the worker preloads this module) rather than at every agent's start. */
const knownDefinitionTokens: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(knownDefinitions).map(([name, definition]) => [name, estimateTextTokens(JSON.stringify(definition))]),
);

/** The agent's model's context window (the tree's override first). */
export function contextWindowFor(input: Pick<AgentWorkflowInput, 'model' | 'limits'>): number {
  return contextWindowOf(input.model, input.limits.contextWindowTokens);
}

/** A compaction runs before a request that would pass this many tokens. */
export function compactAtTokens(input: Pick<AgentWorkflowInput, 'model' | 'limits'>): number {
  const fraction = input.limits.compactAtFraction ?? defaultAgentLimits.compactAtFraction!;
  return Math.floor(contextWindowFor(input) * Math.min(Math.max(fraction, 0.1), 1));
}

function overheadTokens(input: Pick<AgentWorkflowInput, 'tools'>, state: AgentState): number {
  if (state.contextOverheadTokens !== undefined) return state.contextOverheadTokens;
  const tools = input.tools.reduce(
    (sum, name) => sum + (Object.hasOwn(knownDefinitionTokens, name) ? knownDefinitionTokens[name]! : 0),
    0,
  );
  return estimateTextTokens(state.systemPrompt) + tools;
}

/** Estimated tokens of the next request with the conversation as it is. */
export function estimateNextRequestTokens(input: Pick<AgentWorkflowInput, 'tools'>, state: AgentState): number {
  return overheadTokens(input, state) + state.conversation.tokensOf();
}

/** After a model call over the first `messageCount` messages: what its prompt cost besides them. */
export function measureRequest(state: AgentState, usage: TokenUsage, messageCount: number): void {
  const prompt = usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
  if (prompt <= 0) return;
  state.recordOverheadTokens(Math.max(0, prompt - state.conversation.tokensOf(0, messageCount)));
}

/** The context part of the status query. */
export function contextSnapshot(
  input: Pick<AgentWorkflowInput, 'model' | 'limits' | 'tools'>,
  state: AgentState,
): ContextSnapshot {
  return {
    estimatedTokens: estimateNextRequestTokens(input, state),
    window: contextWindowFor(input),
    compactAtTokens: compactAtTokens(input),
    conversationBytes: state.conversation.byteCount,
    compactions: state.compactions,
  };
}
