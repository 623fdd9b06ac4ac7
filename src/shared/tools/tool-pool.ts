import type { PermissionMode } from '../agents/agent';
import type { AgentDefinition } from '../agents/agent-definition';
import {
  agentCompanionToolNames,
  coordinationToolNames,
  editToolNames,
  optInToolNames,
  readOnlyToolNames,
  runtimeToolNames,
  subagentForbiddenToolNames,
} from '../policy/tool-classification';

/** Coordination tools a subagent may have. */
const subagentCoordinationTools = coordinationToolNames.filter((name) => !subagentForbiddenToolNames.includes(name));

/** Tools a background agent may use in each permission mode without a person answering a prompt. */
export function backgroundAllowedTools(mode: PermissionMode): readonly string[] {
  const safe = [...readOnlyToolNames, ...subagentCoordinationTools];
  switch (mode) {
    case 'bypassPermissions':
      return [...safe, ...editToolNames, 'Bash', 'Rewind'];
    case 'acceptEdits':
      return [...safe, ...editToolNames];
    case 'default':
    case 'plan':
    case 'dontAsk':
    case 'bubble':
      return safe;
  }
}

/** What the pool of a new agent depends on. */
export interface ToolPoolInput {
  definition: Pick<AgentDefinition, 'tools' | 'disallowedTools' | 'readOnlyBash' | 'memory'>;
  /** Depth the new agent will have (root = 0). */
  depth: number;
  /** Agents at this depth may not spawn further. */
  maxDepth: number;
  background: boolean;
  permissionMode: PermissionMode;
}

/** Assembles a new agent's tool pool in the fixed order of docs/architecture.md, Spawning (forks keep their parent's). */
export function assembleToolPool(input: ToolPoolInput): string[] {
  const background = new Set(backgroundAllowedTools(input.permissionMode));
  const denied = new Set(input.definition.disallowedTools ?? []);
  // An agent with memory gets the file tools to keep it (Claude Code adds Read, Write and Edit).
  const allowList =
    input.definition.tools && input.definition.memory
      ? [...input.definition.tools, 'Read', 'Write', 'Edit']
      : input.definition.tools;
  const allowAll = !allowList || allowList.includes('*');
  const readOnlyBash = input.definition.readOnlyBash === true;
  const pool = runtimeToolNames.filter((name) => {
    if (input.depth > 0 && subagentForbiddenToolNames.includes(name)) return false;
    if (name === 'Agent' && input.depth >= input.maxDepth) return false;
    // A script run sits one level below its caller and its agents one more (docs/workflows.md).
    if (name === 'Workflow' && input.depth + 1 >= input.maxDepth) return false;
    if (input.background && !background.has(name) && !(name === 'Bash' && readOnlyBash)) return false;
    if (denied.has(name)) return false;
    if (optInToolNames.includes(name)) return allowList?.includes(name) === true;
    return allowAll || allowList.includes(name);
  });
  return pool.includes('Agent') ? pool : pool.filter((name) => !agentCompanionToolNames.includes(name));
}

/** The pool of a root agent: every runtime tool its definition allows (roots may stop their own tasks). */
export function rootToolPool(
  definition: Pick<AgentDefinition, 'tools' | 'disallowedTools' | 'readOnlyBash' | 'memory'>,
  maxDepth: number,
): string[] {
  return assembleToolPool({ definition, depth: 0, maxDepth, background: false, permissionMode: 'bypassPermissions' });
}
