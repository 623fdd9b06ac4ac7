import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/shared/agents/agent-definition';
import { renderAgentRoster, rosterLines } from '../../src/shared/agents/agent-roster';
import { builtinAgents } from '../../src/shared/agents/builtin-agents';

const reviewer: AgentDefinition = {
  name: 'code-reviewer',
  description: 'Reviews a diff for bugs and style.\nUse after changes.',
  tools: ['Read', 'Grep'],
  model: 'sonnet',
  prompt: 'Review.',
  source: 'project',
};
const definitions = { ...builtinAgents, 'code-reviewer': reviewer };
const base = {
  definitions,
  depth: 0,
  maxDepth: 3,
  permissionMode: 'default' as const,
  model: 'claude-opus-5',
  forking: false,
};

/** A user-level definition named `name` with a one-letter description and prompt. */
const userDefinition = (name: string, fields: Partial<AgentDefinition>): AgentDefinition => ({
  name,
  description: 'd',
  prompt: 'p',
  source: 'user',
  ...fields,
});

describe('the agent roster', () => {
  it('lists every type sorted by name, with description, the tools the child would get and its model', () => {
    expect(rosterLines(base)).toEqual([
      '- Explore: ' +
        builtinAgents.Explore!.description +
        ' (Tools: Bash (read-only commands), Glob, Grep, Read, WebFetch, WebSearch, TodoWrite; model: claude-haiku-4-5)',
      '- Plan: ' +
        builtinAgents.Plan!.description +
        ' (Tools: Bash (read-only commands), Glob, Grep, Read, WebFetch, WebSearch, TodoWrite; model: claude-opus-5)',
      '- code-reviewer: Reviews a diff for bugs and style. Use after changes. (Tools: Grep, Read; model: claude-sonnet-5)',
      '- general-purpose: ' +
        builtinAgents['general-purpose']!.description +
        ' (Tools: Agent, Workflow, SendMessage, TaskStop, TaskOutput, Bash, Glob, Grep, Read, Edit, Write, WebFetch, WebSearch, TodoWrite, TaskCreate, TaskList, TaskGet, TaskUpdate; model: claude-opus-5)',
    ]);
  });

  it('respects Agent(type, …) restrictions and the depth limit', () => {
    expect(rosterLines({ ...base, allowedAgentTypes: ['Explore'] }).map((line) => line.split(':')[0])).toEqual([
      '- Explore',
    ]);
    // Children at the deepest level get no Agent tool.
    expect(rosterLines({ ...base, depth: 2 }).at(-1)).toContain(
      '(Tools: SendMessage, Bash, Glob, Grep, Read, Edit, Write, WebFetch, WebSearch, TodoWrite, TaskCreate, TaskList, TaskGet, TaskUpdate;',
    );
  });

  it('uses the subagent model override, and says how background-only and worktree types run', () => {
    const worker = userDefinition('worker', { background: true, isolation: 'worktree' });
    const lines = rosterLines({ ...base, definitions: { worker }, subagentModelOverride: 'haiku' });
    expect(lines).toEqual([
      '- worker: d (Tools: Agent, Workflow, SendMessage, TaskStop, TaskOutput, Glob, Grep, Read, WebFetch, WebSearch, TodoWrite, TaskCreate, TaskList, TaskGet, TaskUpdate; model: claude-haiku-4-5; runs always in the background, in its own git worktree)',
    ]);
  });

  it('leaves out a type that would get no tools, and renders nothing when none is left', () => {
    const empty = userDefinition('empty', { tools: ['Bash'], background: true });
    expect(rosterLines({ ...base, definitions: { empty } })).toEqual([]);
    expect(renderAgentRoster({ ...base, definitions: { empty } })).toBeUndefined();
  });

  it('states what an omitted subagent_type starts in this run, and the usage rules', () => {
    const off = renderAgentRoster(base)!;
    expect(off).toMatch(/^# Agent types you can start with the Agent tool\n- Explore:/);
    expect(off).toContain('Omitting subagent_type starts a general-purpose agent (forking is off for this run)');
    for (const rule of [
      'in ONE message',
      'Brief it like a capable colleague',
      'run_in_background',
      'isolation: "worktree"',
      'SendMessage',
      'The user does not see',
    ]) {
      expect(off).toContain(rule);
    }
    expect(renderAgentRoster({ ...base, forking: true })).toContain(
      'Omitting subagent_type forks you (forking is on for this run)',
    );
  });

  it('is deterministic: the same input gives the same bytes whatever the definitions order', () => {
    const reversed = Object.fromEntries(Object.entries(definitions).reverse());
    expect(renderAgentRoster({ ...base, definitions: reversed })).toBe(renderAgentRoster(base));
  });
});
