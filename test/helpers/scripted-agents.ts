/** Scripted-model agents in one line each: the match and the turns, without the scenario's nesting. */
import type { Turn } from '../../src/model-server/server';

/** One agent of a scripted scenario (src/model-server/scenario-schema.ts). */
export interface ScriptedAgent {
  match: { agentName?: string; userIncludes?: string; agentType?: string; agentId?: string };
  turns: Turn[];
}

/** The agent started or spawned under this name. */
export const agentNamed = (agentName: string, turns: Turn[]): ScriptedAgent => ({ match: { agentName }, turns });

/** The agent whose user message contains this text. */
export const agentPrompted = (userIncludes: string, turns: Turn[]): ScriptedAgent => ({
  match: { userIncludes },
  turns,
});

/** Every agent of this type. */
export const agentOfType = (agentType: string, turns: Turn[]): ScriptedAgent => ({ match: { agentType }, turns });

/** The agent with this id. */
export const agentWithId = (agentId: string, turns: Turn[]): ScriptedAgent => ({ match: { agentId }, turns });

/** A root that delegates to a middle agent that delegates to a leaf running `sleep 60`: a three-level tree to stop. */
export function threeLevelTree(rootName: string, middlePrompt: string, leafPrompt: string): ScriptedAgent[] {
  return [
    agentNamed(rootName, [{ toolUses: [{ name: 'Agent', input: { description: 'middle', prompt: middlePrompt } }] }]),
    agentPrompted(middlePrompt, [
      { toolUses: [{ name: 'Agent', input: { description: 'leaf', prompt: leafPrompt } }] },
    ]),
    agentPrompted(leafPrompt, [{ toolUses: [{ name: 'Bash', input: { command: 'sleep 60' } }] }]),
  ];
}
