// The crash suite's script runs: their plan, the scripted calls they match, the marker count and what passes.
import { describe, expect, it } from 'vitest';
import { matchesAgent } from '../../src/model-server/scripted';
import type { RequestContext } from '../../src/model-server/request-types';
import { checkScript } from '../../src/shared/scripts/script-check';
import { createPrng } from '../chaos/prng';
import type { AgentReport } from '../chaos/run-one';
import {
  agentCallCount,
  buildScriptPlans,
  callKeys,
  callToken,
  chaosScriptSource,
  countMarkers,
  markerPrefix,
  scriptScenarioEntries,
} from '../chaos/script-plan';
import { formatScriptTable, scriptRunsPassed, summarizeScriptRuns } from '../chaos/script-report';
import type { ScriptRunOutcome } from '../chaos/script-run-one';

const [plan] = buildScriptPlans(createPrng(7), 1, 3, 7);

describe('chaos script runs: the plan', () => {
  it('is the same for the same seed, with kills later and later in the run', () => {
    expect(buildScriptPlans(createPrng(7), 1, 3, 7)).toEqual([plan]);
    expect(buildScriptPlans(createPrng(8), 1, 3, 8)[0]!.kills).not.toEqual(plan!.kills);
    const progress = plan!.kills.map((kill) => kill.count / (kill.on === 'markers' ? agentCallCount : 60));
    expect(progress).toHaveLength(3);
    for (let index = 1; index < progress.length; index++)
      expect(progress[index]!).toBeGreaterThan(progress[index - 1]! + 0.1);
    expect(plan!.runId).toBe('chaos-7-s01');
  });

  it('passes the script checks, and each prompt the script makes matches exactly one scripted call', () => {
    expect(checkScript(chaosScriptSource, 'inline').ok).toBe(true);
    const entries = scriptScenarioEntries(plan!, '/tmp/markers.log');
    expect(entries).toHaveLength(agentCallCount);
    // The prompts as the script builds them: a check's prompt quotes the reader's answer.
    const prompts = callKeys.map((key, index) => {
      const task = key.startsWith('check') ? `check "${callKeys[index - 20]} done"` : 'append your marker, then answer';
      return `CHAOS-SR ${callToken(plan!.runId, key)} ${task}`;
    });
    for (const [index, prompt] of prompts.entries()) {
      const context = { agentId: 'x', latestUserText: prompt, systemText: '' } as RequestContext;
      const matched = entries.filter((entry) => matchesAgent(entry.match, context));
      expect(matched.map((entry) => entry.match.userIncludes)).toEqual([callToken(plan!.runId, callKeys[index]!)]);
    }
    const bash = entries[0]!.turns[0]!.toolUses![0]!;
    expect(bash.name).toBe('Bash');
    expect(bash.input.command).toContain(`${markerPrefix(plan!.runId)}read-01 {{agent_id}}' >> '/tmp/markers.log'`);
  });
});

describe('chaos script runs: markers', () => {
  it('counts lines per call, with the agent that wrote them, and lines naming no call', () => {
    const prefix = markerPrefix('run-a');
    const text = [
      `${prefix}read-01 run-a.1`,
      `${prefix}read-02 run-a.2`,
      `${prefix}read-01 run-a.1`,
      `${prefix}read-99 run-a.9`,
      `${markerPrefix('run-b')}read-03 run-b.3`,
      '',
    ].join('\n');
    const markers = countMarkers('run-a', text);
    expect(Object.fromEntries(markers.counts)).toEqual({ 'read-01': 2, 'read-02': 1 });
    expect(markers.agentIds.get('read-01')).toEqual(['run-a.1', 'run-a.1']);
    expect(markers.strays).toEqual([`${prefix}read-99 run-a.9`]);
  });
});

function outcome(more: Partial<ScriptRunOutcome>): ScriptRunOutcome {
  const agent = (index: number): AgentReport => ({
    agentId: `${plan!.runId}.${index}`,
    workflowStatus: 'COMPLETED',
    resultStatus: 'completed',
    runs: 1,
    messages: [],
    lost: [],
    mismatches: [],
    markedRetries: index === 1 ? 1 : 0,
    bashDuplicates: 0,
    partialBash: 0,
    requestsPerTurn: [1, 1],
    workflowTaskTimeouts: 0,
    maxAttempts: {},
    unexplainedRetries: [],
    taskStarts: [],
  });
  return {
    plan: plan!,
    slot: 'slot-1',
    status: 'completed',
    completed: true,
    problems: [],
    durationMs: 60_000,
    kills: [],
    missingMarkers: [],
    repeatedMarkers: [],
    extraMarkers: 0,
    bashCutBeforeEcho: [],
    childrenStarted: agentCallCount,
    runWorkflowTaskTimeouts: 0,
    agents: Array.from({ length: agentCallCount }, (_, index) => agent(index + 1)),
    notes: [],
    ...more,
  };
}

describe('chaos script runs: the summary', () => {
  it('passes runs whose every call ran once, a Bash cut before its echo included', () => {
    const cut = outcome({ missingMarkers: ['read-04'], bashCutBeforeEcho: ['read-04'] });
    const summary = summarizeScriptRuns([outcome({}), cut]);
    expect(summary).toMatchObject({ runs: 2, completed: 2, agentCalls: 60, missingMarkers: 0, duplicatedMarkers: 0 });
    expect(summary.perRun.map((run) => [run.markersOnce, run.modelRetries])).toEqual([
      [30, 1],
      [29, 1],
    ]);
    expect(scriptRunsPassed(summary, 2)).toBe(true);
    expect(scriptRunsPassed(summary, 3)).toBe(false);
    expect(formatScriptTable([cut])).toContain('30/30');
  });

  it('fails a run with a call run twice, a marker missing unexplained, a lost result or a run not completed', () => {
    const twice = outcome({ repeatedMarkers: ['check-02'], extraMarkers: 1 });
    const missing = outcome({ missingMarkers: ['read-04'] });
    const lost = outcome({});
    lost.agents[3] = { ...lost.agents[3]!, lost: ['tool_use t has 0 tool_results'] };
    const duplicatedBash = outcome({});
    duplicatedBash.agents[5] = { ...duplicatedBash.agents[5]!, bashDuplicates: 1 };
    for (const failing of [twice, missing, lost, duplicatedBash, outcome({ completed: false, status: 'stuck' })])
      expect(scriptRunsPassed(summarizeScriptRuns([failing]), 1)).toBe(false);
    expect(summarizeScriptRuns([twice]).perRun[0]!.markersOnce).toBe(29);
  });
});
