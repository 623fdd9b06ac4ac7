/** Where an agent hook may start its checking child: every event that takes agent hooks, never once the agent has ended. */
import { describe, expect, it } from 'vitest';
import { handlerTypesFor } from '../../src/shared/policy/hook-handlers';
import { hookEvents } from '../../src/shared/policy/hooks';
import { agentHookRefusal, runAgentHook, type HookAgentParent } from '../../src/workflows/tools/agent-hook';
import type { AgentWorkflowInput } from '../../src/shared/agents/agent';

describe('agentHookRefusal', () => {
  it("runs agent hooks at every event of Claude Code's list that takes them", () => {
    const taking = hookEvents.filter((event) => handlerTypesFor(event).includes('agent'));
    expect(taking.sort()).toEqual(
      [
        'PermissionRequest',
        'PostToolUse',
        'PostToolUseFailure',
        'PreToolUse',
        'Stop',
        'SubagentStop',
        'TaskCompleted',
        'TaskCreated',
        'UserPromptSubmit',
      ].sort(),
    );
    for (const event of taking) expect(agentHookRefusal(event), event).toBeUndefined();
  });

  it('refuses, with a notice naming the event, where the agent has ended (its children stopped)', () => {
    for (const event of ['StopFailure', 'WorktreeRemove', 'SessionEnd'] as const)
      expect(agentHookRefusal(event)).toBe(
        `agent hooks cannot run at ${event}: the agent has ended and starts no child there; skipped (use a command or http hook)`,
      );
  });

  it('an agent hook that slipped past the settings check (a hand-made workflow input) starts no child at SessionEnd', async () => {
    const started: string[] = [];
    const parent: HookAgentParent = {
      input: { agentId: 'agent-x' } as AgentWorkflowInput,
      agentTool: {
        startForScript: async (toolUseId) => {
          started.push(toolUseId);
          return { ok: false, error: 'must not be called' };
        },
      },
      children: { find: () => undefined, stop: async () => undefined },
    };
    const verdict = await runAgentHook(
      parent,
      { type: 'agent', prompt: 'Did it go well? $ARGUMENTS' },
      { event: 'SessionEnd', payload: { reason: 'other' }, summary: 'hook SessionEnd' },
    );
    expect(started).toEqual([]);
    expect(verdict).toMatchObject({ kind: 'error', notice: agentHookRefusal('SessionEnd') });
  });
});
