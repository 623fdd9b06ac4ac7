import { describe, expect, it } from 'vitest';
import { assembleToolPool, rootToolPool } from '../../src/shared/tools/tool-pool';

/** The task-list tools (docs/board.md): coordination tools, so every agent, background ones too, may have them. */
const board = ['TaskCreate', 'TaskList', 'TaskGet', 'TaskUpdate'];
/** The web and todo tools (docs/tools.md): read-only, so background agents have them too. */
const web = ['WebFetch', 'WebSearch', 'TodoWrite'];
/** The tools that manage children (docs/tools.md), in pool order. */
const children = ['Agent', 'Workflow', 'SendMessage', 'TaskStop', 'TaskOutput'];
/** The read-only file tools and the editing ones, in pool order. */
const reads = ['Glob', 'Grep', 'Read'];
const edits = ['Edit', 'Write'];

const base = { depth: 1, maxDepth: 3, background: false, permissionMode: 'default' as const };

describe('assembleToolPool', () => {
  it('gives a general-purpose child every tool, the same list as its root (one cache prefix)', () => {
    expect(assembleToolPool({ ...base, definition: {} })).toEqual([
      ...children,
      'Bash',
      ...reads,
      ...edits,
      ...web,
      ...board,
    ]);
    expect(assembleToolPool({ ...base, definition: {} })).toEqual(rootToolPool({}, 3));
  });

  it('withholds Agent at the depth limit', () => {
    expect(assembleToolPool({ ...base, depth: 3, definition: {} })).not.toContain('Agent');
    expect(assembleToolPool({ ...base, depth: 2, definition: {} })).toContain('Agent');
  });

  it('withholds Workflow one level earlier (a run and its agents take two levels) and without Agent', () => {
    expect(assembleToolPool({ ...base, depth: 1, definition: {} })).toContain('Workflow');
    expect(assembleToolPool({ ...base, depth: 2, definition: {} })).not.toContain('Workflow');
    expect(assembleToolPool({ ...base, definition: { disallowedTools: ['Agent'] } })).not.toContain('Workflow');
    expect(assembleToolPool({ ...base, definition: { disallowedTools: ['Workflow'] } })).toContain('Agent');
  });

  it('keeps only the background allow-list of the permission mode', () => {
    expect(assembleToolPool({ ...base, background: true, definition: {} })).toEqual([
      ...children,
      ...reads,
      ...web,
      ...board,
    ]);
    expect(assembleToolPool({ ...base, background: true, permissionMode: 'acceptEdits', definition: {} })).toEqual([
      ...children,
      ...reads,
      ...edits,
      ...web,
      ...board,
    ]);
    expect(
      assembleToolPool({ ...base, background: true, permissionMode: 'bypassPermissions', definition: {} }),
    ).toContain('Bash');
  });

  it('applies disallowedTools before the tools allow-list', () => {
    expect(
      assembleToolPool({ ...base, definition: { tools: ['Read', 'Edit', 'Bash'], disallowedTools: ['Edit'] } }),
    ).toEqual(['Bash', 'Read']);
    expect(assembleToolPool({ ...base, definition: { tools: ['*'], disallowedTools: ['Bash', 'Agent'] } })).toEqual([
      'SendMessage',
      ...reads,
      ...edits,
      ...web,
      ...board,
    ]);
  });

  it('keeps the task-list tools a definition names, also in the background, and drops them when denied', () => {
    expect(
      assembleToolPool({ ...base, background: true, definition: { tools: ['TaskList', 'TaskUpdate', 'Read'] } }),
    ).toEqual(['Read', 'TaskList', 'TaskUpdate']);
    expect(assembleToolPool({ ...base, definition: { disallowedTools: board } })).toEqual([
      ...children,
      'Bash',
      ...reads,
      ...edits,
      ...web,
    ]);
  });

  it('can resolve to nothing (the caller refuses the spawn)', () => {
    expect(assembleToolPool({ ...base, background: true, definition: { tools: ['Bash'] } })).toEqual([]);
  });

  it('lets a root stop its own tasks; TaskStop comes only with Agent (it stops only the agent own children)', () => {
    expect(rootToolPool({}, 3)).toContain('TaskStop');
    expect(assembleToolPool({ ...base, definition: { tools: ['TaskStop', 'Read'] } })).toEqual(['Read']);
    // TaskOutput likewise: it reads only the agent's own children, so it comes with Agent, also for subagents.
    expect(assembleToolPool({ ...base, definition: { tools: ['TaskOutput', 'Read'] } })).toEqual(['Read']);
    expect(assembleToolPool({ ...base, depth: 2, definition: { tools: ['Agent', 'TaskOutput'] } })).toEqual([
      'Agent',
      'TaskOutput',
    ]);
    expect(rootToolPool({}, 0)).not.toContain('Agent');
    expect(rootToolPool({}, 0)).not.toContain('TaskStop');
    expect(assembleToolPool({ ...base, depth: 3, definition: {} })).not.toContain('TaskStop');
  });

  it('keeps a read-only Bash for a background agent (it never needs a person)', () => {
    const explore = { tools: ['Bash', 'Glob', 'Grep', 'Read'], readOnlyBash: true };
    expect(assembleToolPool({ ...base, background: true, definition: explore })).toEqual([
      'Bash',
      'Glob',
      'Grep',
      'Read',
    ]);
    expect(assembleToolPool({ ...base, background: true, definition: { tools: ['Bash', 'Read'] } })).toEqual(['Read']);
  });
});
