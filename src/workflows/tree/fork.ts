import type { AgentWorkflowInput, PermissionMode } from '../../shared/agents/agent';
import type { ChildSpec } from '../../shared/agents/agent-input';
import { forkMarker } from '../../shared/agents/fork-layout';
import { forkMaxTurns } from '../../shared/protocol/limits';
import {
  emptyTokenUsage,
  type ContentBlock,
  type MessageParam,
  type TextBlock,
  type ToolResultBlock,
} from '../../shared/model/messages';
import { toolUsesOf } from '../../shared/tools/tool-results';
import type { AgentToolInput } from './agent-tool-input';
import type { AgentState } from '../loop/agent-state';
import { workflowNowMs } from '../runtime/clock';

/** The one tool_result text every tool_use of the forking message gets in every fork child. */
export const forkPlaceholderResult = 'Fork started — processing in background';

/** The child's directive, wrapped in the fork marker with the rules a fork follows. */
export function forkDirective(directive: string): string {
  return [
    `<${forkMarker}>`,
    'You are a fork of the agent whose conversation is above: you share its context, tools and model, and you',
    'work on your own. Rules:',
    '- Do the work yourself with your own tools. Do not start subagents or forks.',
    '- Do not converse or ask questions: nobody answers them.',
    '- If you change files, say exactly which.',
    '- Finish with a concise report (at most 500 words) that begins with "Scope:".',
    `</${forkMarker}>`,
    '',
    `Your directive: ${directive}`,
  ].join('\n');
}

/** A fork child's conversation: the parent's, placeholder results, its directive last; siblings share the prefix. */
export function buildForkedMessages(parentMessages: readonly MessageParam[], directive: string): MessageParam[] {
  const assistant = parentMessages[parentMessages.length - 1];
  if (!assistant || assistant.role !== 'assistant') {
    throw new Error(
      'A fork starts from an assistant message with tool_use blocks; the conversation does not end with one.',
    );
  }
  const results: ToolResultBlock[] = toolUsesOf(assistant.content).map((toolUse) => ({
    type: 'tool_result',
    tool_use_id: toolUse.id,
    content: forkPlaceholderResult,
  }));
  const directiveBlock: TextBlock = { type: 'text', text: forkDirective(directive) };
  const content: ContentBlock[] = [...results, directiveBlock];
  return [...parentMessages, { role: 'user', content }];
}

/** True when the conversation carries a fork directive: this agent is a fork and may not fork again. */
export function isForkConversation(messages: readonly MessageParam[]): boolean {
  const tag = `<${forkMarker}>`;
  return messages.some(
    (message) =>
      message.role === 'user' &&
      (typeof message.content === 'string'
        ? message.content.includes(tag)
        : message.content.some((block) => block.type === 'text' && block.text.includes(tag))),
  );
}

/** A fork child continuing from this agent's exact request prefix (docs/architecture.md, Spawning). */
export function forkChildSpec(
  parent: AgentWorkflowInput,
  state: AgentState,
  runId: string,
  childId: string,
  request: AgentToolInput,
  background: boolean,
): ChildSpec {
  const parentMode = state.permissions.mode;
  const notNarrowed = parentMode === 'bypassPermissions' || parentMode === 'acceptEdits';
  const permissionMode: PermissionMode = notNarrowed ? parentMode : 'bubble';
  return {
    agentId: childId,
    agentType: 'fork',
    name: request.name,
    description: request.description,
    prompt: request.prompt,
    model: parent.model,
    definitionPrompt: parent.definitionPrompt,
    ...(parent.definitionPromptRef ? { definitionPromptRef: parent.definitionPromptRef } : {}),
    renderedSystemPrompt: state.systemPrompt,
    tools: [...parent.tools],
    cwd: request.cwd ?? state.cwd,
    workspaceRoot: state.workspaceRoot,
    ...(request.isolation === 'worktree' ? { isolation: 'worktree' as const } : {}),
    permissionMode,
    maxTurns: forkMaxTurns,
    allowedAgentTypes: parent.allowedAgentTypes,
    ...(parent.readOnlyBash ? { readOnlyBash: true } : {}),
    ...(parent.thinking ? { thinking: parent.thinking } : {}),
    ...(parent.effort ? { effort: parent.effort } : {}),
    ...(parent.toolRules ? { toolRules: parent.toolRules } : {}),
    ...(parent.definitionHooks ? { definitionHooks: parent.definitionHooks } : {}),
    background,
    forkFrom: {
      agentId: parent.agentId,
      runId,
      messageCount: state.messages.length,
      conversationHash: state.conversationHash,
      directive: request.prompt,
    },
    carried: {
      messages: [],
      usage: emptyTokenUsage(),
      toolUses: 0,
      turn: 0,
      readFileState: { ...state.readFileState },
      contentReplacements: { ...state.contentReplacements },
      startedAtMs: workflowNowMs(),
      spawnCount: 0,
      descendantUsage: emptyTokenUsage(),
      // The parent's exact extra tools: the fork's request prefix must match byte for byte.
      ...(state.extraTools ? { extraTools: state.extraTools } : {}),
    },
  };
}
