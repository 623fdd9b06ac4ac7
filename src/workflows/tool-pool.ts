import type { PermissionMode } from '../shared/agent';
import type { AgentDefinition } from '../shared/agent-definition';
import { readOnlyTools, runtimeToolNames } from '../shared/runtime-tools';

/** Tools no subagent may have: stopping other tasks (and, in Claude Code, reading their output, plan mode, asking the user). */
export const subagentDisallowedTools: readonly string[] = ['TaskStop', 'TaskOutput', 'EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'];

/** Tools a background agent may use in each permission mode without a person answering a prompt. */
export function backgroundAllowedTools(mode: PermissionMode): readonly string[] {
  const coordination = ['Agent', 'SendMessage'];
  switch (mode) {
    case 'bypassPermissions':
      return [...readOnlyTools, ...coordination, 'Edit', 'Write', 'Bash'];
    case 'acceptEdits':
      return [...readOnlyTools, ...coordination, 'Edit', 'Write'];
    case 'default':
    case 'plan':
    case 'dontAsk':
    case 'bubble':
      return [...readOnlyTools, ...coordination];
  }
}

/** What the pool of a new agent depends on. */
export interface ToolPoolInput {
  definition: Pick<AgentDefinition, 'tools' | 'disallowedTools'>;
  /** Depth the new agent will have (root = 0). */
  depth: number;
  /** Agents at this depth may not spawn further. */
  maxDepth: number;
  background: boolean;
  permissionMode: PermissionMode;
  /** Fork children get the parent's exact pool (for a byte-identical request prefix). */
  forkOfParentPool?: readonly string[];
}

/**
 * Assembles a subagent's tool pool fresh (SPEC §1.3), in the runtime's fixed order:
 * 1. drop tools no subagent may have, and Agent at the depth limit;
 * 2. a background agent keeps only its permission mode's allow-list;
 * 3. the definition's disallowedTools, then its tools allow-list.
 * A fork gets the parent's exact list instead. The result may be empty: the caller refuses that.
 */
export function assembleToolPool(input: ToolPoolInput): string[] {
  if (input.forkOfParentPool) return [...input.forkOfParentPool];
  const background = new Set(backgroundAllowedTools(input.permissionMode));
  const denied = new Set(input.definition.disallowedTools ?? []);
  const allowList = input.definition.tools;
  const allowAll = !allowList || allowList.includes('*');
  return runtimeToolNames.filter((name) => {
    if (input.depth > 0 && subagentDisallowedTools.includes(name)) return false;
    if (name === 'Agent' && input.depth >= input.maxDepth) return false;
    if (input.background && !background.has(name)) return false;
    if (denied.has(name)) return false;
    return allowAll || allowList.includes(name);
  });
}

/** The pool of a root agent: every runtime tool its definition allows (roots may stop their own tasks). */
export function rootToolPool(definition: Pick<AgentDefinition, 'tools' | 'disallowedTools'>, maxDepth: number): string[] {
  return assembleToolPool({ definition, depth: 0, maxDepth, background: false, permissionMode: 'bypassPermissions' });
}
