import { describe, expect, it } from 'vitest';
import { InvalidAgentDefinition, mapSdkAgents } from '../../src/client/agent-sdk-definitions';
import { mergeSdkAgents } from '../../src/shared/agents/sdk-agents';
import { builtinAgents } from '../../src/shared/agents/builtin-agents';
import type { LoadedDefinitions } from '../../src/shared/agents/agent-definition';

const reviewer = {
  description: 'Reviews code for bugs',
  prompt: 'You review code.',
  tools: ['Read', 'Grep', 'Bash(git diff:*)'],
  disallowedTools: ['Write'],
  model: 'haiku',
  skills: ['lint'],
  maxTurns: 7,
  background: true,
  memory: 'project' as const,
  effort: 'high' as const,
  permissionMode: 'acceptEdits' as const,
  mcpServers: ['github', { docs: { command: 'docs-server' } }],
};

describe('mapSdkAgents', () => {
  it("maps every SDK field onto this runtime's definition, as a .claude/agents file would", () => {
    const { agents, reports } = mapSdkAgents({ reviewer });
    const mapped = agents.reviewer!;
    expect(mapped).toMatchObject({
      name: 'reviewer',
      description: 'Reviews code for bugs',
      prompt: 'You review code.',
      source: 'sdk',
      model: 'haiku',
      maxTurns: 7,
      background: true,
      memory: 'project',
      effort: 'high',
      permissionMode: 'acceptEdits',
      skills: ['lint'],
      disallowedTools: ['Write'],
    });
    expect(mapped.tools).toEqual(expect.arrayContaining(['Read', 'Grep', 'Bash']));
    expect(mapped.toolRules?.allow?.[0]).toMatchObject({ tool: 'Bash', content: 'git diff:*' });
    expect(mapped.mcpServers?.map((entry) => entry.name)).toEqual(['github', 'docs']);
    expect(mapped.file).toBeUndefined();
    expect(reports.filter((report) => report.level === 'skipped')).toEqual([]);
  });

  it('keeps initialPrompt for the root and reports fields with no meaning here (never drops them silently)', () => {
    const { initialPrompts, reports } = mapSdkAgents({
      lead: {
        description: 'd',
        prompt: 'p',
        initialPrompt: 'Start with the README.',
        criticalSystemReminder_EXPERIMENTAL: 'x',
        colour: 'red',
      },
    });
    expect(initialPrompts).toEqual({ lead: 'Start with the README.' });
    const messages = reports.map((report) => `${report.file}: ${report.message}`);
    expect(messages).toContainEqual(
      expect.stringMatching(
        /options\.agents\["lead"\]: field "criticalSystemReminder_EXPERIMENTAL" is accepted but has no effect/,
      ),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/field "colour" is not a Claude Agent SDK AgentDefinition field/),
    );
  });

  it('reports an agent left with no tools (its spawns are refused) without refusing the set', () => {
    const { reports } = mapSdkAgents({
      a: { description: 'd', prompt: 'p', tools: ['Write'], disallowedTools: ['Write'] },
    });
    expect(reports).toContainEqual(
      expect.objectContaining({ level: 'warning', message: expect.stringMatching(/resolves to no tools/) }),
    );
  });

  it('works with names in any language', () => {
    const { agents } = mapSdkAgents({ レビュー担当: { description: 'コードを読む', prompt: 'You review code.' } });
    expect(agents['レビュー担当']).toMatchObject({ name: 'レビュー担当', description: 'コードを読む' });
  });

  it.each([
    [{ a: { prompt: 'p' } }, /options\.agents\["a"\]\.description: description must be a string/],
    [{ a: { description: 'd', prompt: '  ' } }, /options\.agents\["a"\]\.prompt: prompt must not be empty/],
    [{ a: { description: 'd', prompt: 'p', tools: 'Read' } }, /\["a"\]\.tools: tools must be an array of strings/],
    [
      { a: { description: 'd', prompt: 'p', maxTurns: 0 } },
      /\["a"\]\.maxTurns: maxTurns must be a positive whole number/,
    ],
    [{ a: { description: 'd', prompt: 'p', effort: 3 } }, /\["a"\]\.effort: effort must be one of low/],
    [
      { a: { description: 'd', prompt: 'p', permissionMode: 'yolo' } },
      /\["a"\]\.permissionMode: permissionMode must be one of/,
    ],
    [{ a: { description: 'd', prompt: 'p', memory: 'disk' } }, /\["a"\]\.memory: memory must be/],
    [{ a: 'reviewer' }, /options\.agents\["a"\]: must be an object with at least description and prompt/],
    [{ 'two\nlines': { description: 'd', prompt: 'p' } }, /the agent name contains a control character/],
    [{ fork: { description: 'd', prompt: 'p' } }, /the agent name is reserved/],
    [
      { a: { description: 'd', prompt: 'x'.repeat(300 * 1024) } },
      /\["a"\]: the body of agent "a" is 300 KiB, over the 256 KiB limit/,
    ],
    [{ a: { description: 'd', prompt: 'p', hooks: () => 1 } }, /functions cannot be recorded/],
    [[], /options\.agents must be an object of agent definitions by name/],
    [null, /options\.agents must be an object/],
  ])('refuses bad input with an error naming the agent and field (%#)', (agents, message) => {
    expect(() => mapSdkAgents(agents)).toThrow(InvalidAgentDefinition);
    expect(() => mapSdkAgents(agents)).toThrow(message);
  });

  it('refuses prompts that together exceed what every input of the tree can carry', () => {
    const big = { description: 'd', prompt: 'y'.repeat(200 * 1024) };
    expect(() => mapSdkAgents({ a: big, b: big, c: big })).toThrow(/prompts together are 600 KiB, over the 512 KiB/);
  });
});

describe('mergeSdkAgents', () => {
  const loaded: LoadedDefinitions = {
    definitions: {
      'general-purpose': structuredClone(builtinAgents['general-purpose']!),
      reviewer: {
        name: 'reviewer',
        description: 'file',
        prompt: 'from the file',
        source: 'project',
        file: '/p/.claude/agents/reviewer.md',
      },
    },
    reports: [],
    searched: [],
  };

  it('lets the programmatic definition win on a name clash, and says so', () => {
    const { agents } = mapSdkAgents({
      reviewer: { description: 'sdk', prompt: 'from options' },
      zeta: { description: 'z', prompt: 'z' },
    });
    const merged = mergeSdkAgents(loaded, agents);
    expect(merged.definitions.reviewer).toMatchObject({ prompt: 'from options', source: 'sdk' });
    expect(Object.keys(merged.definitions)).toEqual(['general-purpose', 'reviewer', 'zeta']);
    expect(merged.reports).toContainEqual(
      expect.objectContaining({
        file: '/p/.claude/agents/reviewer.md',
        level: 'skipped',
        message: expect.stringMatching(/programmatic definitions take precedence over project ones/),
      }),
    );
    expect(loaded.definitions.reviewer!.prompt).toBe('from the file');
  });

  it("lets a later layer (startAgent's) win over an earlier one (the plugin's) without a report", () => {
    const plugin = mapSdkAgents({ reviewer: { description: 'plugin', prompt: 'plugin prompt' } }).agents;
    const start = mapSdkAgents({ reviewer: { description: 'start', prompt: 'start prompt' } }).agents;
    const merged = mergeSdkAgents(loaded, plugin, start);
    expect(merged.definitions.reviewer!.prompt).toBe('start prompt');
    expect(merged.reports.filter((report) => report.name === 'reviewer')).toHaveLength(1);
  });

  it('returns the loaded definitions unchanged without agents', () => {
    expect(mergeSdkAgents(loaded, undefined, {})).toBe(loaded);
  });
});
