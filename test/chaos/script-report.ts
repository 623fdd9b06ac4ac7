// The script runs' table (one row per run), the details under it, and their part of the summary JSON.
import type { AgentReport } from './run-one';
import { agentCallCount, describeScriptKill } from './script-plan';
import type { ScriptRunOutcome } from './script-run-one';
import { seconds } from './util';

/** Per script run, in the summary JSON. */
export interface ScriptRunFigures {
  run: string;
  completed: boolean;
  kills: number;
  durationMs: number;
  /** agent() calls whose marker is in the file exactly once. */
  markersOnce: number;
  /** Model requests that repeated one already made (retries of a cut call: Temporal retries the model call, not the tool). */
  modelRetries: number;
}

export interface ScriptRunsSummary {
  runs: number;
  completed: number;
  /** agent() calls over all runs (30 each). */
  agentCalls: number;
  /** Calls with no marker line that their Bash result does not explain (a cut before the echo is allowed and shown). */
  missingMarkers: number;
  /** Marker lines beyond one per call, plus lines naming no call. */
  duplicatedMarkers: number;
  /** As the tree runs' counters, over the script runs' agents. */
  lostToolResults: number;
  duplicatedBashRuns: number;
  transcriptMismatches: number;
  kills: number;
  perRun: ScriptRunFigures[];
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
/** Lost tool results, extra Bash runs, agents whose transcript mismatched: as the tree runs' runCounters. */
const counters = (outcome: ScriptRunOutcome) => {
  const over = (pick: (agent: AgentReport) => number) => sum(outcome.agents.map(pick));
  return {
    lost: over((agent) => agent.lost.length),
    dupBash: over((agent) => agent.bashDuplicates),
    mismatch: over((agent) => (agent.mismatches.length > 0 ? 1 : 0)),
  };
};
const modelRetries = (outcome: ScriptRunOutcome) => sum(outcome.agents.map((agent) => agent.markedRetries));
const unexplainedMissing = (outcome: ScriptRunOutcome) =>
  outcome.missingMarkers.filter((key) => !outcome.bashCutBeforeEcho.includes(key)).length;

export function formatScriptTable(outcomes: readonly ScriptRunOutcome[]): string {
  const columns: [string, (outcome: ScriptRunOutcome) => string][] = [
    ['script run', (outcome) => outcome.plan.label],
    [
      'kills (planned → at)',
      (outcome) =>
        outcome.plan.kills
          .map((trigger, index) => {
            const kill = outcome.kills[index];
            return `${describeScriptKill(trigger)} → ${kill ? seconds(kill.atMs) : 'missed'}`;
          })
          .join('; '),
    ],
    ['slot', (outcome) => outcome.slot],
    ['status', (outcome) => (outcome.completed ? 'completed' : outcome.status)],
    ['time', (outcome) => seconds(outcome.durationMs)],
    [
      'agents completed',
      (outcome) => `${outcome.agents.filter((agent) => agent.resultStatus === 'completed').length}/${agentCallCount}`,
    ],
    ['children started', (outcome) => String(outcome.childrenStarted)],
    ['markers missing', (outcome) => String(outcome.missingMarkers.length)],
    ['markers extra', (outcome) => String(outcome.extraMarkers)],
    ['lost', (outcome) => String(counters(outcome).lost)],
    ['dup bash', (outcome) => String(counters(outcome).dupBash)],
    ['mismatch', (outcome) => String(counters(outcome).mismatch)],
    ['model retries', (outcome) => String(modelRetries(outcome))],
    ['bash "partially run"', (outcome) => String(sum(outcome.agents.map((agent) => agent.partialBash)))],
    ['run WFT timeouts', (outcome) => String(outcome.runWorkflowTaskTimeouts)],
  ];
  const cells = outcomes.map((outcome) => columns.map(([, cell]) => cell(outcome)));
  const widths = columns.map(([title], index) => Math.max(title.length, ...cells.map((row) => row[index]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, index) => cell.padEnd(widths[index]!))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map(([title]) => title)),
    line(widths.map((width) => '-'.repeat(width))),
    ...cells.map(line),
  ].join('\n');
}

/** One line per script run with anything worth reading: problems, notes, lost results, mismatches, extra Bash runs. */
export function formatScriptDetails(outcomes: readonly ScriptRunOutcome[]): string[] {
  return outcomes.flatMap((outcome) => {
    const details = [
      ...outcome.problems,
      ...outcome.notes,
      ...outcome.agents.flatMap((agent) => [
        ...agent.lost.map((text) => `${agent.agentId} lost: ${text}`),
        ...agent.mismatches.map((text) => `${agent.agentId} mismatch: ${text}`),
        ...(agent.bashDuplicates > 0 ? [`${agent.agentId}: Bash ran ${agent.bashDuplicates + 1} times`] : []),
        ...agent.unexplainedRetries,
      ]),
    ];
    return details.length > 0 ? [`${outcome.plan.label} (${outcome.plan.runId}): ${details.join('; ')}`] : [];
  });
}

export function summarizeScriptRuns(outcomes: readonly ScriptRunOutcome[]): ScriptRunsSummary {
  const all = outcomes.map(counters);
  return {
    runs: outcomes.length,
    completed: outcomes.filter((outcome) => outcome.completed).length,
    agentCalls: outcomes.length * agentCallCount,
    missingMarkers: sum(outcomes.map(unexplainedMissing)),
    duplicatedMarkers: sum(outcomes.map((outcome) => outcome.extraMarkers)),
    lostToolResults: sum(all.map((counter) => counter.lost)),
    duplicatedBashRuns: sum(all.map((counter) => counter.dupBash)),
    transcriptMismatches: sum(all.map((counter) => counter.mismatch)),
    kills: sum(outcomes.map((outcome) => outcome.kills.length)),
    perRun: outcomes.map((outcome) => ({
      run: outcome.plan.label,
      completed: outcome.completed,
      kills: outcome.kills.length,
      durationMs: outcome.durationMs,
      markersOnce: agentCallCount - outcome.missingMarkers.length - outcome.repeatedMarkers.length,
      modelRetries: modelRetries(outcome),
    })),
  };
}

/** True when every script run completed and none of their counters is above 0. */
export function scriptRunsPassed(summary: ScriptRunsSummary, expectedRuns: number): boolean {
  return (
    summary.runs === expectedRuns &&
    summary.completed === summary.runs &&
    summary.missingMarkers === 0 &&
    summary.duplicatedMarkers === 0 &&
    summary.lostToolResults === 0 &&
    summary.duplicatedBashRuns === 0 &&
    summary.transcriptMismatches === 0
  );
}
