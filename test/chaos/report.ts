// The human table (one row per run), the details under it, and the summary JSON.
import { describeKill, type KillKind } from './plan';
import { evidence, recovery, type AgentReport, type RunOutcome } from './run-one';
import { seconds } from './util';

export interface ChaosSummary {
  runs: number;
  completed: number;
  lostToolResults: number;
  duplicatedBashRuns: number;
  transcriptMismatches: number;
  /**
   * Longest wait of a target agent from the kill until a worker took up its work again, in runs killed
   * during its setup (child start, worktree creation) while a setup step was in flight: not a kill point
   * that came after the agent's first model or tool call had begun (that run is that call's recovery).
   */
  setupRecoveryMsMax: number | null;
  /** The same wait in runs whose target agent resumed with a retried model call (its heartbeat timeout), whatever the kill point's name. */
  modelCallRecoveryMsMax: number | null;
  seed: number;
  durationMs: number;
}

/**
 * Kills inside an agent's setup: a worker killed at its first workflow task (agent start) or in its
 * worktree creation. By kind, not trigger: a dev-server restart may fire at a child's start too, and what
 * it costs is the in-flight calls' timeouts, not the setup's.
 */
const setupKills = new Set<KillKind>(['child-start', 'worktree-creation']);

/** The target agent resumed with a retry of its model call (attempt 2 or later): the call had begun when the worker died. */
const resumedInModelCall = (task: string) => {
  const attempt = /^callModel attempt (\d+)$/.exec(task)?.[1];
  return attempt !== undefined && Number(attempt) >= 2;
};

/** The activities of an agent's setup, before and around its first model call (src/workflows/loop/setup.ts, workspace-activities.ts, extra-tools.ts). */
const setupActivities: ReadonlySet<string> = new Set([
  'renderAgentStart',
  'renderSystemPrompt',
  'createWorktree',
  'finishWorktree',
  'loadSpawnContext',
  'fetchConversation',
  'fetchResumeState',
  'resolveAgentCwd',
  'startMcpServers',
]);

/**
 * The target agent resumed with its workflow task or a retried setup activity — not with a model call or
 * a tool call (e.g. `Glob attempt 2`), which would mean the kill landed after its setup, and the run
 * recovered on that call's heartbeat timeout.
 */
const resumedInSetup = (task: string) =>
  task === 'workflow task' || setupActivities.has(task.replace(/ attempt \d+$/, ''));

/** A run whose kill came during the target agent's setup, with a setup step (not a model or tool call) in flight. */
export function killedInSetup(outcome: RunOutcome): boolean {
  const resumed = recovery(outcome);
  return setupKills.has(outcome.plan.kill.kind) && resumed !== undefined && resumedInSetup(resumed.task);
}

const runLabel = (outcome: RunOutcome) => `r${String(outcome.plan.index).padStart(2, '0')}`;
const sum = (agents: readonly AgentReport[], pick: (agent: AgentReport) => number) =>
  agents.reduce((total, agent) => total + pick(agent), 0);

/** Per run: lost tool results, extra Bash runs, agents whose transcript mismatched. */
export function runCounters(outcome: RunOutcome): { lost: number; dupBash: number; mismatch: number } {
  return {
    lost: sum(outcome.agents, (agent) => agent.lost.length),
    dupBash: sum(outcome.agents, (agent) => agent.bashDuplicates),
    mismatch: sum(outcome.agents, (agent) => (agent.mismatches.length > 0 ? 1 : 0)),
  };
}

export function formatTable(outcomes: readonly RunOutcome[]): string {
  const columns: [string, (outcome: RunOutcome) => string][] = [
    ['run', runLabel],
    [
      'kill point',
      (outcome) => describeKill(outcome.plan.kill) + (outcome.plan.continueAsNewAfterEvents ? ' [CAN]' : ''),
    ],
    ['at', (outcome) => (outcome.disruptedAtMs === undefined ? 'missed' : seconds(outcome.disruptedAtMs))],
    ['slot', (outcome) => outcome.slot],
    ['what the target agent shows', evidence],
    [
      'recovered',
      (outcome) => {
        const resumed = recovery(outcome);
        return resumed === undefined ? '-' : `${seconds(resumed.ms)} (${resumed.task})`;
      },
    ],
    ['status', (outcome) => (outcome.completed ? 'completed' : outcome.rootStatus)],
    ['time', (outcome) => seconds(outcome.durationMs)],
    ['agents', (outcome) => String(outcome.agents.length)],
    ['wf runs', (outcome) => String(sum(outcome.agents, (agent) => agent.runs))],
    ['lost', (outcome) => String(runCounters(outcome).lost)],
    ['dup bash', (outcome) => String(runCounters(outcome).dupBash)],
    ['mismatch', (outcome) => String(runCounters(outcome).mismatch)],
    ['marked retries', (outcome) => String(sum(outcome.agents, (agent) => agent.markedRetries))],
    ['bash "partially run"', (outcome) => String(sum(outcome.agents, (agent) => agent.partialBash))],
    ['unexplained retries', (outcome) => String(sum(outcome.agents, (agent) => agent.unexplainedRetries.length))],
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

/** One line per run with anything worth reading: notes, lost results, mismatches, extra Bash runs, unexplained retries. */
export function formatDetails(outcomes: readonly RunOutcome[]): string[] {
  return outcomes.flatMap((outcome) => {
    const resumed = recovery(outcome);
    const landedLate = setupKills.has(outcome.plan.kill.kind) && resumed !== undefined && !resumedInSetup(resumed.task);
    const counted =
      resumed !== undefined && resumedInModelCall(resumed.task)
        ? "a model call's recovery"
        : "that call's recovery (its heartbeat timeout)";
    const details = [
      ...(landedLate
        ? [
            `the ${outcome.plan.kill.kind} kill landed after the target agent's setup, with a call in flight (resumed with ${resumed.task}): counted as ${counted}, not a setup one`,
          ]
        : []),
      ...outcome.notes,
      ...outcome.agents.flatMap((agent) => [
        ...agent.lost.map((text) => `${agent.agentId} lost: ${text}`),
        ...agent.mismatches.map((text) => `${agent.agentId} mismatch: ${text}`),
        ...(agent.bashDuplicates > 0 ? [`${agent.agentId}: Bash ran ${agent.bashDuplicates + 1} times`] : []),
        ...agent.unexplainedRetries,
      ]),
    ];
    return details.length > 0 ? [`${runLabel(outcome)} (${outcome.plan.rootId}): ${details.join('; ')}`] : [];
  });
}

export function summarize(outcomes: readonly RunOutcome[], seed: number, durationMs: number): ChaosSummary {
  const counters = outcomes.map(runCounters);
  const setupRecoveries = outcomes.filter(killedInSetup).flatMap((outcome) => recovery(outcome)?.ms ?? []);
  const modelCallRecoveries = outcomes.flatMap((outcome) => {
    const resumed = recovery(outcome);
    return resumed !== undefined && resumedInModelCall(resumed.task) ? [resumed.ms] : [];
  });
  const max = (values: number[]) => (values.length > 0 ? Math.max(...values) : null);
  return {
    runs: outcomes.length,
    completed: outcomes.filter((outcome) => outcome.completed).length,
    lostToolResults: counters.reduce((total, counter) => total + counter.lost, 0),
    duplicatedBashRuns: counters.reduce((total, counter) => total + counter.dupBash, 0),
    transcriptMismatches: counters.reduce((total, counter) => total + counter.mismatch, 0),
    setupRecoveryMsMax: max(setupRecoveries),
    modelCallRecoveryMsMax: max(modelCallRecoveries),
    seed,
    durationMs,
  };
}
