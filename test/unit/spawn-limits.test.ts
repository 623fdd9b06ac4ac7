import { describe, expect, it } from 'vitest';
import { ancestorsOf, localSpawnRefusal, treeSpawnRefusal } from '../../src/workflows/tree/spawn-limits';

describe('localSpawnRefusal', () => {
  const ok = { depth: 0, maxDepth: 3, runningChildren: 0, maxChildrenPerAgent: 10, childId: 'r.1', ancestorIds: ['r'] };
  it('allows a spawn within every limit', () => {
    expect(localSpawnRefusal(ok)).toBeUndefined();
  });
  it.each([
    [{ depth: 3 }, 'maximum nesting depth 3'],
    [{ runningChildren: 10 }, 'already has 10 running subagents (limit 10)'],
    [{ ancestorIds: ['r', 'r.1'] }, 'lineage cycle'],
  ])('refuses %o', (override, message) => {
    const refusal = localSpawnRefusal({ ...ok, ...override });
    expect(refusal).toContain(message);
    expect(refusal).toMatch(/^SpawnLimitReached: /);
  });
});

describe('treeSpawnRefusal', () => {
  const ok = { paused: false, budgetExceeded: false, runningAgents: 0, maxAgentsPerTree: 20 };
  it('allows a spawn within every limit', () => {
    expect(treeSpawnRefusal(ok)).toBeUndefined();
  });
  it.each([
    [{ paused: true }, 'paused'],
    [{ budgetExceeded: true }, 'token budget'],
    [{ runningAgents: 20 }, 'already has 20 running agents (limit 20)'],
  ])('refuses %o', (override, message) => {
    const refusal = treeSpawnRefusal({ ...ok, ...override });
    expect(refusal).toContain(message);
    expect(refusal).toMatch(/^SpawnLimitReached: /);
  });
});

describe('ancestorsOf', () => {
  it('derives the lineage from the id', () => {
    expect(ancestorsOf('agent-x.1.2')).toEqual(['agent-x', 'agent-x.1']);
    expect(ancestorsOf('agent-x')).toEqual([]);
  });
});
