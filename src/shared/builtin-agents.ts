import type { AgentDefinition } from './agent-definition';
import { isReadOnlyTool, runtimeToolNames } from './tool-classification';

/** The read-only tools, in the runtime's order. */
const readOnlyTools = runtimeToolNames.filter(isReadOnlyTool);

const sharedGuidance =
  'Use the tools to find real answers; quote file paths you used. When you are done, reply with a concise final report: ' +
  'what you found or changed, and anything left open.';

/** Built-in types (docs/agent-definitions.md); a project or user definition with the same name replaces one. */
export const builtinAgents: Record<string, AgentDefinition> = {
  'general-purpose': {
    name: 'general-purpose',
    description: 'General-purpose agent for researching complex questions, searching code and carrying out multi-step tasks.',
    model: 'inherit',
    prompt: `You are an agent for a software engineering runtime. Complete the task you are given fully, using the tools available. ${sharedGuidance}`,
    source: 'built-in',
  },
  Explore: {
    name: 'Explore',
    description: 'Fast read-only agent for exploring codebases: finding files, searching code, answering questions about it.',
    tools: [...readOnlyTools],
    model: 'haiku',
    prompt: `You are a read-only codebase exploration agent. You cannot modify files. Search broadly, then read what matters. ${sharedGuidance}`,
    source: 'built-in',
  },
  Plan: {
    name: 'Plan',
    description: 'Read-only software architect agent for designing implementation plans.',
    tools: [...readOnlyTools],
    model: 'inherit',
    prompt: `You are a read-only planning agent. Explore the code and produce a step-by-step implementation plan naming the files to change. ${sharedGuidance}`,
    source: 'built-in',
  },
};
