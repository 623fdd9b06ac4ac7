// An agent's identity and roster open its first message, so agents of one type share a cached system prompt.
import type { AgentStartInput } from '../../shared/agents/agent-start';

/** The identity section. */
export function identitySection(
  input: Pick<AgentStartInput, 'agentId' | 'name' | 'parentAgentId' | 'depth' | 'maxDepth'>,
): string {
  const lines = ['# This agent', `agentId: ${input.agentId}`];
  if (input.name) lines.push(`Name: ${input.name} (other agents reach you with SendMessage to: "${input.name}")`);
  if (input.parentAgentId) {
    lines.push(
      `Started by: ${input.parentAgentId}. Your final message is returned to it as its Agent tool result.`,
      `Depth: ${input.depth} (the deepest level agents may reach is ${input.maxDepth}).`,
    );
  } else {
    lines.push('You are the root of this agent tree (depth 0): your final message is the answer the user reads.');
  }
  return lines.join('\n');
}

/** Wraps runtime context the way Claude models expect it: a system reminder inside a user message. */
export function systemReminder(sections: readonly string[]): string {
  return `<system-reminder>\n${sections.join('\n\n')}\n</system-reminder>`;
}
