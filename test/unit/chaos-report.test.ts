// The crash suite's report: a setup kill's recovery counts as setup only when a setup step was in flight.
import { describe, expect, it } from 'vitest';
import { agentIdOf, type KillKind, type Trigger } from '../chaos/plan';
import { formatDetails, formatTable, killedInSetup, summarize } from '../chaos/report';
import type { AgentReport, RunOutcome } from '../chaos/run-one';

const killedAt = 1_000_000;

function outcome(
  index: number,
  kind: KillKind,
  trigger: Trigger,
  resumed: { afterMs: number; task: string }[],
): RunOutcome {
  const rootId = `chaos-r${index}`;
  const role = trigger.on === 'worktree-hook' ? 'fg' : 'bgChild';
  const agent: AgentReport = {
    agentId: agentIdOf(rootId, role),
    role,
    workflowStatus: 'COMPLETED',
    resultStatus: 'completed',
    runs: 1,
    messages: [],
    lost: [],
    mismatches: [],
    markedRetries: 0,
    bashDuplicates: 0,
    partialBash: 0,
    requestsPerTurn: [1, 2],
    workflowTaskTimeouts: 0,
    maxAttempts: {},
    unexplainedRetries: [],
    taskStarts: [
      { atMs: killedAt - 500, task: 'workflow task' },
      ...resumed.map(({ afterMs, task }) => ({ atMs: killedAt + afterMs, task })),
    ],
  };
  return {
    plan: {
      index,
      rootId,
      kill: { kind, trigger, restartServer: false },
      delays: { root: [], bg: [], bgChild: [], fg: [], fgChild: [] },
    },
    slot: 'w1',
    rootStatus: 'completed',
    completed: true,
    durationMs: 60_000,
    disruptedAtMs: 5_000,
    killedAtEpochMs: killedAt,
    agents: [agent],
    notes: [],
  };
}

const childStart: Trigger = { on: 'child-started', role: 'bgChild' };

describe('chaos report: recovery by what was in flight', () => {
  const setupStep = outcome(1, 'child-start', childStart, [{ afterMs: 9_800, task: 'workflow task' }]);
  const lateKill = outcome(2, 'child-start', childStart, [
    { afterMs: 31_800, task: 'callModel attempt 2' },
    { afterMs: 32_000, task: 'workflow task' },
  ]);
  const modelKill = outcome(3, 'model-call', { on: 'model-request', role: 'bgChild', turn: 1 }, [
    { afterMs: 31_100, task: 'callModel attempt 2' },
  ]);

  it('counts a child-start kill as setup only when the agent resumed with a setup task, not its model call', () => {
    expect(killedInSetup(setupStep)).toBe(true);
    expect(killedInSetup(lateKill)).toBe(false);
    expect(killedInSetup(modelKill)).toBe(false);
    const summary = summarize([setupStep, lateKill, modelKill], 7, 1);
    expect(summary.setupRecoveryMsMax).toBe(9_800);
    expect(summary.modelCallRecoveryMsMax).toBe(31_800);
  });

  it('names the resumed task in the table and explains a late setup kill under it', () => {
    const table = formatTable([setupStep, lateKill]);
    expect(table).toContain('9.8s (workflow task)');
    expect(table).toContain('31.8s (callModel attempt 2)');
    const details = formatDetails([setupStep, lateKill]);
    expect(details).toHaveLength(1);
    expect(details[0]).toMatch(
      /^r02 .*child-start kill landed after the target agent's setup, with a call in flight \(resumed with callModel attempt 2\): counted as a model call's recovery/,
    );
  });

  it("counts a child-start kill that landed in the child's first tool call as neither setup nor a model call", () => {
    const inTool = outcome(6, 'child-start', childStart, [{ afterMs: 31_700, task: 'Glob attempt 2' }]);
    expect(killedInSetup(inTool)).toBe(false);
    expect(summarize([setupStep, inTool], 7, 1)).toMatchObject({
      setupRecoveryMsMax: 9_800,
      modelCallRecoveryMsMax: null,
    });
    expect(formatTable([inTool])).toContain('31.7s (Glob attempt 2)');
    expect(formatDetails([inTool])[0]).toMatch(
      /^r06 .*resumed with Glob attempt 2\): counted as that call's recovery \(its heartbeat timeout\)/,
    );
  });

  it('counts a worktree kill resumed with its retried setup step', () => {
    const worktree = outcome(4, 'worktree-creation', { on: 'worktree-hook' }, [
      { afterMs: 10_200, task: 'createWorktree attempt 2' },
    ]);
    expect(killedInSetup(worktree)).toBe(true);
    expect(summarize([worktree, lateKill], 7, 1)).toMatchObject({
      setupRecoveryMsMax: 10_200,
      modelCallRecoveryMsMax: 31_800,
    });
  });

  it('counts any retry of the model call, the tenth and later too, but not its first attempt', () => {
    const tenth = outcome(7, 'model-call', { on: 'model-request', role: 'bgChild', turn: 1 }, [
      { afterMs: 33_400, task: 'callModel attempt 12' },
    ]);
    const first = outcome(8, 'model-call', { on: 'model-request', role: 'bgChild', turn: 1 }, [
      { afterMs: 40_000, task: 'callModel attempt 1' },
    ]);
    expect(summarize([modelKill, tenth], 7, 1).modelCallRecoveryMsMax).toBe(33_400);
    expect(summarize([first], 7, 1).modelCallRecoveryMsMax).toBeNull();
  });

  it('gives null figures when no run was killed there', () => {
    const summary = summarize([modelKill], 7, 1);
    expect(summary.setupRecoveryMsMax).toBeNull();
    expect(
      summarize([outcome(5, 'worktree-creation', { on: 'worktree-hook' }, [])], 7, 1).setupRecoveryMsMax,
    ).toBeNull();
  });
});
