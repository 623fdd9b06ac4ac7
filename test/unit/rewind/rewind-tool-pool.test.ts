import { describe, expect, it } from 'vitest';
import { optInToolNames, runtimeToolNames } from '../../../src/shared/policy/tool-classification';
import { assembleToolPool, rootToolPool } from '../../../src/shared/tools/tool-pool';
import { parseAllowList, parseDenyList, remainingTools } from '../../../src/project/agent-definitions/tool-spec';
import type { AgentDefinition } from '../../../src/shared/agents/agent-definition';

type Definition = Pick<AgentDefinition, 'tools' | 'disallowedTools' | 'readOnlyBash' | 'memory'>;

const child = { depth: 1, maxDepth: 3, background: false, permissionMode: 'default' as const };
const poolOf = (definition: Definition) => assembleToolPool({ ...child, definition });
/** What a definition file's `tools` / `disallowedTools` lines give the pool. */
const fromFile = (tools?: string, disallowed?: string): Definition => ({
  ...(tools !== undefined ? { tools: parseAllowList(tools).tools } : {}),
  ...(disallowed !== undefined ? { disallowedTools: parseDenyList(disallowed).disallowedTools } : {}),
});
const everyTool = runtimeToolNames.filter((name) => name !== 'Rewind');

describe('Rewind in the tool pool: off by default', () => {
  it('is the only opt-in tool, and the last in request order', () => {
    expect(optInToolNames).toEqual(['Rewind']);
    expect(runtimeToolNames.at(-1)).toBe('Rewind');
  });

  it('is never in the pool of an absent tools list or of `*`, at any depth', () => {
    expect(poolOf({})).not.toContain('Rewind');
    expect(poolOf({ tools: ['*'] })).not.toContain('Rewind');
    expect(poolOf(fromFile('*'))).not.toContain('Rewind');
    expect(rootToolPool({}, 3)).not.toContain('Rewind');
    expect(rootToolPool({ tools: ['*'] }, 3)).not.toContain('Rewind');
    expect(rootToolPool({}, 3)).toEqual([...everyTool]);
  });

  it('is there when the list names it, last, after the other tools it names', () => {
    expect(poolOf({ tools: ['Bash', 'Read', 'Rewind'] })).toEqual(['Bash', 'Read', 'Rewind']);
    expect(poolOf(fromFile('Rewind, Read, Bash'))).toEqual(['Bash', 'Read', 'Rewind']);
    expect(poolOf({ tools: ['Rewind'] })).toEqual(['Rewind']);
    expect(rootToolPool({ tools: ['Read', 'Rewind'] }, 3)).toEqual(['Read', 'Rewind']);
  });

  it('`*, Rewind` is every tool plus Rewind, in request order', () => {
    expect(poolOf({ tools: ['*', 'Rewind'] })).toEqual(poolOf({}).concat('Rewind'));
    expect(poolOf(fromFile('*, Rewind'))).toEqual(poolOf({}).concat('Rewind'));
    expect(rootToolPool({ tools: ['*', 'Rewind'] }, 3)).toEqual([...runtimeToolNames]);
  });

  it('`disallowedTools: Rewind` removes it, whichever way it was granted', () => {
    expect(poolOf({ tools: ['Read', 'Rewind'], disallowedTools: ['Rewind'] })).toEqual(['Read']);
    expect(poolOf(fromFile('*, Rewind', 'Rewind'))).toEqual(poolOf({}));
    expect(poolOf(fromFile('Bash, Rewind', '*'))).toEqual([]);
  });

  it('is left out of a background agent that names it where the mode would ask a person (like Bash)', () => {
    expect(assembleToolPool({ ...child, background: true, definition: { tools: ['Read', 'Rewind'] } })).toEqual([
      'Read',
    ]);
  });

  it('keeps it with memory (which adds the file tools) when named', () => {
    expect(poolOf({ tools: ['Rewind'], memory: 'project' })).toEqual(['Read', 'Edit', 'Write', 'Rewind']);
    expect(poolOf({ memory: 'project' })).not.toContain('Rewind');
  });

  it('is named only as itself: other spellings are not tools of this runtime', () => {
    const parsed = parseAllowList('rewind, Rewind(*), Bash');
    expect(parsed.tools).toEqual(['Bash', 'Rewind']);
    expect(parsed.dropped).toEqual(['rewind']);
    expect(parsed.warnings[0]).toContain('rewind (did you mean Rewind?)');
  });
});

describe('parseAllowList and Rewind', () => {
  it('`*` alone is every tool (no list), `*, Rewind` a list of every tool and Rewind', () => {
    expect(parseAllowList('*').tools).toBeUndefined();
    expect(parseAllowList('*, Rewind').tools).toEqual([...runtimeToolNames]);
    expect(parseAllowList(['*', 'Rewind']).tools).toEqual([...runtimeToolNames]);
  });

  it('a plain list with Rewind keeps runtime order', () => {
    expect(parseAllowList('Rewind, Edit, Read').tools).toEqual(['Read', 'Edit', 'Rewind']);
  });
});

describe('remainingTools', () => {
  it('without a list is every tool but the opt-in ones', () => {
    expect(remainingTools(undefined, undefined)).toEqual([...everyTool]);
    expect(remainingTools(undefined, undefined)).not.toContain('Rewind');
  });

  it('with a list is the list minus the denied tools, Rewind included when listed', () => {
    expect(remainingTools(['Read', 'Rewind'], undefined)).toEqual(['Read', 'Rewind']);
    expect(remainingTools(['Read', 'Rewind'], ['Rewind'])).toEqual(['Read']);
    expect(remainingTools(parseAllowList('*, Rewind').tools, ['Bash'])).toEqual(
      runtimeToolNames.filter((name) => name !== 'Bash'),
    );
  });

  it('is empty when everything is denied', () => {
    expect(remainingTools(undefined, parseDenyList('*').disallowedTools)).toEqual([]);
    expect(remainingTools(['Rewind'], parseDenyList('Rewind').disallowedTools)).toEqual([]);
  });
});
