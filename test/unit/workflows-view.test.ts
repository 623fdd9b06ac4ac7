import { describe, expect, it } from 'vitest';
import type { ScriptRunListing } from '../../src/client/script-runs';
import { scriptRunEventLine, scriptRunEvents } from '../../src/cli/watch/script-run-events';
import {
  agentCounts,
  agentLine,
  phaseSummary,
  runDetailText,
  runFrameText,
  runListText,
} from '../../src/cli/workflows-view';
import type { ScriptAgentStatus, ScriptAgentView, ScriptRunSnapshot } from '../../src/shared/scripts/script-run';

const t0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const zeroCounts = (): Record<ScriptAgentStatus, number> => ({
  queued: 0,
  running: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
  reused: 0,
});
const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
});

function agent(index: number, status: ScriptAgentStatus, more: Partial<ScriptAgentView> = {}): ScriptAgentView {
  return {
    index,
    agentId: `wf-1.${index}`,
    label: `reader ${index}`,
    phase: 'Read',
    agentType: 'general-purpose',
    status,
    tokens: 1500 * index,
    startedAtMs: t0 + index * 1000,
    ...(status === 'running' || status === 'queued' ? {} : { endedAtMs: t0 + index * 1000 + 14_000 }),
    ...more,
  };
}

/** A run in its second phase: two readers done (one reused), one failed, one running, one queued; a checker running. */
function runningRun(): ScriptRunSnapshot {
  return {
    runId: 'wf-1',
    name: 'review',
    description: 'Review the repository',
    status: 'running',
    startedAtMs: t0,
    currentPhase: 'Check',
    phases: [
      {
        title: 'Read',
        counts: { ...zeroCounts(), completed: 1, reused: 1, failed: 1, running: 1, queued: 1 },
        tokens: 9000,
        startedAtMs: t0,
      },
      { title: 'Check', counts: { ...zeroCounts(), running: 1 }, tokens: 0, startedAtMs: t0 + 30_000 },
    ],
    agents: [
      agent(1, 'completed'),
      agent(2, 'reused', { reusedFrom: 'wf-0', startedAtMs: undefined, endedAtMs: undefined }),
      agent(3, 'failed', { error: 'model refused' }),
      agent(4, 'running'),
      agent(5, 'queued', { startedAtMs: undefined }),
      agent(6, 'running', { phase: 'Check', label: 'checker', agentType: 'Explore' }),
    ],
    logs: [
      { atMs: t0 + 1000, text: 'reading 5 folders' },
      { atMs: t0 + 30_000, text: 'checking findings' },
    ],
    usage: usage(10_000, 2_345),
    maxConcurrentAgents: 16,
  };
}

function completedRun(): ScriptRunSnapshot {
  const run = runningRun();
  return {
    ...run,
    status: 'completed',
    endedAtMs: t0 + 125_000,
    currentPhase: undefined,
    phases: [
      { ...run.phases[0]!, counts: { ...zeroCounts(), completed: 3, reused: 1, failed: 1 }, endedAtMs: t0 + 120_000 },
      { ...run.phases[1]!, counts: { ...zeroCounts(), completed: 1 }, endedAtMs: t0 + 120_000 },
    ],
    agents: run.agents.map((one) =>
      one.status === 'running' || one.status === 'queued'
        ? { ...one, status: 'completed', startedAtMs: one.startedAtMs ?? t0 + 40_000, endedAtMs: t0 + 100_000 }
        : one,
    ),
    logs: [...run.logs, { atMs: t0 + 110_000, text: 'synthesis done' }],
    result: { findings: 2, summary: 'two issues' },
  };
}

const now = t0 + 65_000;

describe('script run views', () => {
  it('counts finished agents (reused ones too) of all the run called', () => {
    expect(agentCounts(runningRun())).toEqual({ done: 3, total: 6 });
    expect(agentCounts(completedRun())).toEqual({ done: 6, total: 6 });
  });

  it("sums a phase's agents by status", () => {
    expect(phaseSummary(runningRun().phases[0]!)).toBe('Read: 3/5 (1 running, 1 queued, 1 failed, 1 reused)');
    expect(phaseSummary(runningRun().phases[1]!)).toBe('Check: 0/1 (1 running)');
    expect(phaseSummary(completedRun().phases[1]!)).toBe('Check: 1/1');
  });

  it('lists runs with status, agents, tokens, time and phase counts; a run without a snapshot from visibility', () => {
    const listings: ScriptRunListing[] = [
      { runId: 'wf-1', executionStatus: 'RUNNING', startTime: new Date(t0).toISOString(), snapshot: runningRun() },
      {
        runId: 'wf-0',
        executionStatus: 'COMPLETED',
        startTime: new Date(t0 - 100_000).toISOString(),
        closeTime: new Date(t0 - 10_000).toISOString(),
      },
    ];
    const lines = runListText(listings, now).split('\n');
    expect(lines[0]).toBe(
      'wf-1  review  running  3/6 agents  12.3k tok  1m05s  Read: 3/5 (1 running, 1 queued, 1 failed, 1 reused) · Check: 0/1 (1 running)',
    );
    expect(lines[1]).toBe('wf-0  ?  completed  1m30s  (no worker answered; details unknown)');
    expect(runListText([], now)).toMatch(/^No script runs/);
  });

  it("shows an agent's index, status, type, label, phase, tokens, time, reuse and error", () => {
    expect(agentLine(agent(1, 'completed'), now)).toBe(
      '#1 [completed] general-purpose "reader 1" (Read) · 1.5k tok · 14s',
    );
    expect(agentLine(agent(4, 'running'), now)).toBe(
      '#4 [running] general-purpose "reader 4" (Read) · 6.0k tok · 1m01s',
    );
    expect(agentLine(runningRun().agents[1]!, now)).toBe(
      '#2 [reused] general-purpose "reader 2" (Read) · 3.0k tok · reused from wf-0',
    );
    expect(agentLine(runningRun().agents[2]!, now)).toContain('[failed]');
    expect(agentLine(runningRun().agents[2]!, now)).toMatch(/· model refused$/);
  });

  it('details a finished run: phases, every agent, logs and the result as JSON', () => {
    const text = runDetailText(completedRun(), now);
    expect(text).toContain('wf-1  review — Review the repository');
    expect(text).toContain('status: completed · 6/6 agents · 12.3k tok · 2m05s · up to 16 at once');
    expect(text).toContain('  Read: 5/5 (1 failed, 1 reused) · 9.0k tok · 2m00s');
    for (let index = 1; index <= 6; index++) expect(text).toContain(`  #${index} [`);
    expect(text).toContain('12:01:50 synthesis done');
    expect(text.endsWith(`result:\n${JSON.stringify({ findings: 2, summary: 'two issues' }, null, 2)}`)).toBe(true);
    // A running run has no result yet, and names its current phase.
    const running = runDetailText(runningRun(), now);
    expect(running).not.toContain('result:');
    expect(running).toContain('phase: Check');
  });

  it('a failed run says why; a string result prints as is', () => {
    const failed = { ...completedRun(), status: 'failed' as const, result: undefined, error: 'agent budget exhausted' };
    expect(runDetailText(failed, now)).toContain('status: failed (agent budget exhausted)');
    expect(runDetailText({ ...completedRun(), result: 'all good' }, now).endsWith('result:\nall good')).toBe(true);
  });

  it('the live frame shows running agents first, then the latest finished, queued ones counted, the last logs', () => {
    const frame = runFrameText(runningRun(), now, { agentLines: 3 }).split('\n');
    const agentRows = frame.filter((line) => line.startsWith('  #'));
    expect(agentRows.map((line) => line.slice(2, 4))).toEqual(['#4', '#6', '#3']);
    expect(frame).toContain('  … 1 queued');
    expect(frame.at(-1)).toBe('  › checking findings');
  });
});

describe('script run events', () => {
  it('the first snapshot: phases entered, running agents started, finished ones ended, the logs', () => {
    const events = scriptRunEvents(undefined, runningRun());
    expect(events.map((event) => event.event)).toEqual([
      'phase',
      'phase',
      'agent_finished',
      'agent_finished',
      'agent_finished',
      'agent_started',
      'agent_started',
      'log',
      'log',
    ]);
  });

  it('between two snapshots: only what changed, the run end last', () => {
    const events = scriptRunEvents(runningRun(), completedRun());
    expect(events).toEqual([
      { event: 'agent_finished', agent: expect.objectContaining({ index: 4, status: 'completed' }) },
      { event: 'agent_finished', agent: expect.objectContaining({ index: 5, status: 'completed' }) },
      { event: 'agent_finished', agent: expect.objectContaining({ index: 6, status: 'completed' }) },
      { event: 'log', atMs: t0 + 110_000, text: 'synthesis done' },
      { event: 'run_finished', status: 'completed', tokens: 12_345 },
    ]);
    expect(scriptRunEvents(completedRun(), completedRun())).toEqual([]);
  });

  it('logs past the kept window: the lines after the last one shown', () => {
    const before = runningRun();
    const after = { ...before, logs: [before.logs[1]!, { atMs: t0 + 31_000, text: 'next' }] };
    expect(scriptRunEvents(before, after).filter((event) => event.event === 'log')).toEqual([
      { event: 'log', atMs: t0 + 31_000, text: 'next' },
    ]);
  });

  it('plain lines carry the time and the agent', () => {
    const [finished] = scriptRunEvents(runningRun(), completedRun());
    expect(scriptRunEventLine(finished!, t0 + 100_000)).toBe(
      '12:01:40 finished #4 [completed] general-purpose "reader 4" (Read) · 6.0k tok · 1m36s',
    );
    expect(scriptRunEventLine({ event: 'log', atMs: t0 + 5000, text: 'hi' }, now)).toBe('12:00:05 log hi');
    expect(scriptRunEventLine({ event: 'run_finished', status: 'failed', tokens: 2000, error: 'boom' }, now)).toMatch(
      /run failed \(boom\) · 2\.0k tok$/,
    );
  });
});
