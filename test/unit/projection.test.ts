import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/shared/agents/agent';
import { projectChildResult, taskNotification } from '../../src/workflows/context/projection';
import { TreeCoordinator } from '../../src/workflows/tree/tree-coordinator';
import { defaultAgentLimits } from '../../src/shared/protocol/limits';

/** The running agents the tree counts as background (spawned there, or moved there). */
const runningInBackground = (tree: TreeCoordinator): string[] =>
  tree
    .snapshot()
    .nodes.filter((node) => node.status === 'running' && node.background)
    .map((node) => node.agentId);

const usage = { inputTokens: 10, outputTokens: 5, cacheCreationInputTokens: 100, cacheReadInputTokens: 1000 };
const result: AgentResult = {
  agentId: 'r.1',
  agentType: 'general-purpose',
  status: 'completed',
  finalText: 'Found it in src/a.ts',
  usage,
  toolUses: 3,
  turns: 2,
  durationMs: 1234,
  model: 'm',
  treeUsage: usage,
};

describe('projectChildResult', () => {
  it("is the final text and the agentId to continue it — nothing else (no usage: every token stays in the parent's context)", () => {
    expect(projectChildResult(result)).toBe('Found it in src/a.ts\n\nagentId: r.1');
  });
  it('is the final text alone for one-shot types (Explore, Plan)', () => {
    expect(projectChildResult({ ...result, agentType: 'Explore' })).toBe('Found it in src/a.ts');
    expect(projectChildResult({ ...result, agentType: 'Plan' })).not.toContain('SendMessage');
  });
  it('says when an answer was cut off at the output limit', () => {
    expect(projectChildResult({ ...result, status: 'truncated', finalText: 'partial' })).toMatch(
      /^Agent's answer was cut off at the output limit.*\n\npartial/,
    );
  });
  it('says when a child failed, was stopped, or returned nothing', () => {
    expect(projectChildResult({ ...result, status: 'failed', error: 'ModelInvocationError.NotFound: x' })).toMatch(
      /^Agent failed: ModelInvocationError.NotFound: x/,
    );
    expect(
      projectChildResult({ ...result, status: 'cancelled', finalText: '', error: 'stopped by user: enough' }),
    ).toMatch(/^Agent was stopped: stopped by user: enough/);
    expect(projectChildResult({ ...result, finalText: '' })).toMatch(/^\(Subagent completed but returned no output.\)/);
  });
});

describe('taskNotification', () => {
  it('carries status, summary, result and usage', () => {
    const text = taskNotification({ ...result, status: 'cancelled', error: 'budget' }, 'find parser', 'toolu_1');
    expect(text).toContain('<status>killed</status>');
    expect(text).toContain('<summary>Agent "find parser" was stopped</summary>');
    expect(text).toContain('<tool-use-id>toolu_1</tool-use-id>');
    expect(text).toContain('Agent was stopped: budget');
  });
});

describe('TreeCoordinator', () => {
  const started = (agentId: string, background: boolean) => ({
    agentId,
    parentAgentId: 'r',
    background,
    agentType: 'general-purpose',
    depth: 1,
  });
  /** A tree with a budget of 1000 tokens and two started children, r.1 (background or not) and r.2 (foreground). */
  const treeOfTwo = (firstInBackground: boolean) => {
    const tree = new TreeCoordinator('r', { ...defaultAgentLimits, treeTokenBudget: 1000 });
    tree.request('r.1');
    tree.started(started('r.1', firstInBackground), 0);
    tree.request('r.2');
    tree.started(started('r.2', false), 0);
    return tree;
  };

  it('grants slots up to the per-tree limit and frees them on finish', () => {
    const tree = new TreeCoordinator('r', { ...defaultAgentLimits, maxAgentsPerTree: 2 });
    expect(tree.request('r.1').granted).toBe(true);
    expect(tree.request('r.2').granted).toBe(true);
    expect(tree.request('r.3')).toMatchObject({ granted: false, reason: expect.stringContaining('limit 2') });
    tree.started(started('r.1', false), 10);
    tree.finished('r.1', 20);
    expect(tree.request('r.3').granted).toBe(true);
    expect(tree.snapshot().nodes).toEqual([
      {
        agentId: 'r.1',
        parentAgentId: 'r',
        agentType: 'general-purpose',
        description: undefined,
        name: undefined,
        depth: 1,
        background: false,
        status: 'finished',
        startedAtMs: 10,
        finishedAtMs: 20,
      },
    ]);
  });

  it('crosses the budget once and then refuses spawns; lists background agents to stop', () => {
    const tree = treeOfTwo(true);
    expect(tree.addUsage(usage)).toBe(true);
    expect(tree.addUsage(usage)).toBe(false);
    expect(tree.request('r.3').granted).toBe(false);
    expect(runningInBackground(tree)).toEqual(['r.1']);
  });

  it('marks an agent moved to the background without reviving a finished one', () => {
    const tree = treeOfTwo(false);
    tree.backgrounded('r.1');
    tree.finished('r.2', 5);
    tree.backgrounded('r.2');
    expect(runningInBackground(tree)).toEqual(['r.1']);
    expect(tree.snapshot().nodes.find((node) => node.agentId === 'r.2')).toMatchObject({
      status: 'finished',
      background: true,
    });
  });

  it('refuses every spawn while paused, and allows them again after resume', () => {
    const tree = new TreeCoordinator('r', defaultAgentLimits);
    tree.pauseSpawning(true);
    expect(tree.request('r.1')).toMatchObject({ granted: false, reason: expect.stringContaining('paused') });
    tree.pauseSpawning(false);
    expect(tree.request('r.1').granted).toBe(true);
  });
});
