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

/** A scripted tool call. */
type ToolUse = NonNullable<Turn['toolUses']>[number];

/** A scripted Bash call. */
export const bash = (command: string): ToolUse => ({ name: 'Bash', input: { command } });

/** A scripted Agent call: a subagent with this description and prompt, and any more input fields. */
export const spawn = (description: string, prompt: string, more: Record<string, unknown> = {}): ToolUse => ({
  name: 'Agent',
  input: { description, prompt, ...more },
});

/** A scripted Agent call that runs the subagent in the background. */
export const spawnInBackground = (description: string, prompt: string, more: Record<string, unknown> = {}): ToolUse =>
  spawn(description, prompt, { ...more, run_in_background: true });

/** A root that delegates to a middle agent that delegates to a leaf running `sleep 60`: a three-level tree to stop. */
export function threeLevelTree(rootName: string, middlePrompt: string, leafPrompt: string): ScriptedAgent[] {
  return [
    agentNamed(rootName, [{ toolUses: [spawn('middle', middlePrompt)] }]),
    agentPrompted(middlePrompt, [{ toolUses: [spawn('leaf', leafPrompt)] }]),
    agentPrompted(leafPrompt, [{ toolUses: [bash('sleep 60')] }]),
  ];
}
