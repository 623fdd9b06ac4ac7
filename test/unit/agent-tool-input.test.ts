import { describe, expect, it } from 'vitest';
import { checkSpawnLimits, parseAgentToolInput } from '../../src/workflows/agent-tool-input';
import { ancestorsOf } from '../../src/workflows/subagents';

describe('parseAgentToolInput', () => {
  it('accepts a complete input and trims strings', () => {
    const parsed = parseAgentToolInput({ description: ' find it ', prompt: 'Find the parser', subagent_type: 'Explore', run_in_background: true, name: 'finder' });
    expect(parsed).toEqual({
      ok: true,
      value: { description: 'find it', prompt: 'Find the parser', subagent_type: 'Explore', model: undefined, run_in_background: true, name: 'finder', isolation: undefined, cwd: undefined },
    });
  });

  it('names every bad field', () => {
    const parsed = parseAgentToolInput({ prompt: 3, run_in_background: 'yes', isolation: 'docker', name: 'bad name!' });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toContain('"description"');
    expect(parsed.error).toContain('"prompt"');
    expect(parsed.error).toContain('"run_in_background" must be a boolean');
    expect(parsed.error).toContain('"isolation" must be "worktree"');
    expect(parsed.error).toContain('"name" may use');
  });

  it('refuses cwd together with isolation', () => {
    const parsed = parseAgentToolInput({ description: 'd', prompt: 'p', cwd: '/tmp', isolation: 'worktree' });
    expect(parsed.ok).toBe(false);
  });
});

describe('checkSpawnLimits', () => {
  const ok = { depth: 0, maxDepth: 3, runningChildren: 0, maxChildrenPerAgent: 10, spawningPaused: false, budgetExceeded: false, childId: 'r.1', ancestorIds: ['r'] };
  it('allows a spawn within every limit', () => {
    expect(checkSpawnLimits(ok)).toBeUndefined();
  });
  it.each([
    [{ spawningPaused: true }, 'paused'],
    [{ budgetExceeded: true }, 'token budget'],
    [{ depth: 3 }, 'maximum nesting depth 3'],
    [{ runningChildren: 10 }, 'already has 10 running subagents (limit 10)'],
    [{ ancestorIds: ['r', 'r.1'] }, 'lineage cycle'],
  ])('refuses %o', (override, message) => {
    expect(checkSpawnLimits({ ...ok, ...override })).toContain(message);
  });
});

describe('ancestorsOf', () => {
  it('derives the lineage from the id', () => {
    expect(ancestorsOf('agent-x.1.2')).toEqual(['agent-x', 'agent-x.1']);
    expect(ancestorsOf('agent-x')).toEqual([]);
  });
});
