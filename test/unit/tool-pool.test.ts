import { describe, expect, it } from 'vitest';
import { assembleToolPool, rootToolPool } from '../../src/shared/tool-pool';

const base = { depth: 1, maxDepth: 3, background: false, permissionMode: 'default' as const };

describe('assembleToolPool', () => {
  it('gives a general-purpose child every tool except those no subagent may have', () => {
    expect(assembleToolPool({ ...base, definition: {} })).toEqual(['Agent', 'SendMessage', 'Bash', 'Glob', 'Grep', 'Read', 'Edit', 'Write', 'WebFetch', 'WebSearch', 'TodoWrite']);
  });

  it('withholds Agent at the depth limit', () => {
    expect(assembleToolPool({ ...base, depth: 3, definition: {} })).not.toContain('Agent');
    expect(assembleToolPool({ ...base, depth: 2, definition: {} })).toContain('Agent');
  });

  it('keeps only the background allow-list of the permission mode', () => {
    expect(assembleToolPool({ ...base, background: true, definition: {} })).toEqual(['Agent', 'SendMessage', 'Glob', 'Grep', 'Read', 'WebFetch', 'WebSearch', 'TodoWrite']);
    expect(assembleToolPool({ ...base, background: true, permissionMode: 'acceptEdits', definition: {} })).toEqual([
      'Agent', 'SendMessage', 'Glob', 'Grep', 'Read', 'Edit', 'Write', 'WebFetch', 'WebSearch', 'TodoWrite',
    ]);
    expect(assembleToolPool({ ...base, background: true, permissionMode: 'bypassPermissions', definition: {} })).toContain('Bash');
  });

  it('applies disallowedTools before the tools allow-list', () => {
    expect(assembleToolPool({ ...base, definition: { tools: ['Read', 'Edit', 'Bash'], disallowedTools: ['Edit'] } })).toEqual(['Bash', 'Read']);
    expect(assembleToolPool({ ...base, definition: { tools: ['*'], disallowedTools: ['Bash', 'Agent'] } })).toEqual([
      'SendMessage', 'Glob', 'Grep', 'Read', 'Edit', 'Write', 'WebFetch', 'WebSearch', 'TodoWrite',
    ]);
  });

  it('can resolve to nothing (the caller refuses the spawn)', () => {
    expect(assembleToolPool({ ...base, background: true, definition: { tools: ['Bash'] } })).toEqual([]);
  });

  it('lets a root stop its own tasks; a subagent cannot stop others', () => {
    expect(rootToolPool({}, 3)).toContain('TaskStop');
    expect(assembleToolPool({ ...base, definition: { tools: ['TaskStop', 'Read'] } })).toEqual(['Read']);
    expect(rootToolPool({}, 0)).not.toContain('Agent');
  });
});
