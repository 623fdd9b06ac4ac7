// `npm run test:chaos`: SIGKILL workers (and restart the dev server) at seeded random points of
// 3-level agent trees, then check that every tree completed with no lost tool results, no Bash run
// twice and transcripts that agree with what the model saw; and during 30-agent script runs, then
// check that every agent() call ran exactly once. See docs/chaos.md.
//
// stdout: the tables, details, and LAST one JSON line; stderr: progress. Exit 0 only when every run
// (script runs too) completed and every counter is 0.
import path from 'node:path';
import { SubagentsClient } from '../../src/client/client';
import { canonical } from './checks';
import { ChaosEnv } from './env';
import { buildPlans, scenarioEntries, type RunPlan } from './plan';
import { createPrng, seedFromArgs } from './prng';
import { formatDetails, formatTable, summarize } from './report';
import { executeRun, type RunOutcome } from './run-one';
import { buildScriptPlans, scriptMarkersFile, scriptScenarioEntries, type ScriptRunPlan } from './script-plan';
import {
  formatScriptDetails,
  formatScriptTable,
  scriptRunsPassed,
  summarizeScriptRuns,
  type ScriptRunsSummary,
} from './script-report';
import { executeScriptRun, type ScriptRunOutcome } from './script-run-one';
import { retrying, seconds } from './util';
import type { WorkerSlot } from './worker-slot';

const startedAt = Date.now();
const log = (line: string) => process.stderr.write(`[chaos ${seconds(Date.now() - startedAt).padStart(6)}] ${line}\n`);
const positiveInteger = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const wholeNumber = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number (0 or more)`);
  return value;
};

const seed = seedFromArgs(process.argv.slice(2), process.env);
const runCount = positiveInteger('CHAOS_RUNS', 20);
const scriptRunCount = wholeNumber('CHAOS_SCRIPT_RUNS', 2);
const scriptKillsPerRun = wholeNumber('CHAOS_SCRIPT_KILLS', 2);
const concurrency = Math.min(runCount + scriptRunCount, positiveInteger('CHAOS_CONCURRENCY', 5));
const runTimeoutMs = positiveInteger('CHAOS_RUN_TIMEOUT_MS', 300_000);
const keep = process.env.CHAOS_KEEP === '1';
const plans = buildPlans(createPrng(seed), runCount, seed);
// Their own PRNG stream: the tree runs' plans stay those of the seed whatever the script runs draw.
const scriptPlans = buildScriptPlans(createPrng((seed ^ 0x5c41e7) >>> 0), scriptRunCount, scriptKillsPerRun, seed);
log(
  `seed ${seed} (repeat with: npm run test:chaos -- --seed ${seed}); ${runCount} runs and ${scriptRunCount} script runs, ${concurrency} at a time`,
);

const runLabel = (plan: RunPlan) => `r${String(plan.index).padStart(2, '0')}`;
const env = await ChaosEnv.create({
  slots: concurrency,
  behaviour: { kind: 'scripted', scenario: { agents: [] } },
  log,
  keep,
});
// The scripted Bash commands write to files in the env's temp dir, so the scenario is set once it exists.
env.modelServer.setBehaviour({
  kind: 'scripted',
  scenario: {
    agents: [
      ...plans.flatMap((plan) => scenarioEntries(plan, path.join(env.dir, runLabel(plan), 'bash-markers.log'))),
      ...scriptPlans.flatMap((plan) => scriptScenarioEntries(plan, scriptMarkersFile(env.dir, plan))),
    ],
  },
});
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  log('interrupted: cleaning up');
  void env.close().finally(() => process.exit(130));
});
log(`ready after ${seconds(Date.now() - startedAt)}: ${concurrency} worker slots`);

async function runSafely(plan: RunPlan, slot: WorkerSlot): Promise<RunOutcome> {
  const began = Date.now();
  try {
    return await executeRun(plan, { env, slot, log, runTimeoutMs });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      plan,
      slot: slot.options.name,
      rootStatus: `error: ${message}`,
      completed: false,
      durationMs: Date.now() - began,
      agents: [],
      notes: [`the suite failed on this run: ${message}`],
    };
  }
}

async function scriptRunSafely(plan: ScriptRunPlan, slot: WorkerSlot): Promise<ScriptRunOutcome> {
  const began = Date.now();
  try {
    return await executeScriptRun(plan, { env, slot, log, runTimeoutMs });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      plan,
      slot: slot.options.name,
      status: `error: ${message}`,
      completed: false,
      problems: [`the suite failed on this script run: ${message}`],
      durationMs: Date.now() - began,
      kills: [],
      missingMarkers: [],
      repeatedMarkers: [],
      extraMarkers: 0,
      bashCutBeforeEcho: [],
      childrenStarted: 0,
      runWorkflowTaskTimeouts: 0,
      agents: [],
      notes: [],
    };
  }
}

const outcomes: RunOutcome[] = [];
const scriptOutcomes: ScriptRunOutcome[] = [];
let exitCode = 1;
try {
  // The script runs go first: each is the longest job (30 agents, every kill a model call's 30 s heartbeat timeout).
  const scriptQueue = [...scriptPlans];
  let nextPlan = 0;
  await Promise.all(
    env.slots.map(async (slot) => {
      for (let script = scriptQueue.shift(); script && !interrupted; script = scriptQueue.shift()) {
        const outcome = await scriptRunSafely(script, slot);
        scriptOutcomes.push(outcome);
        log(
          `${script.label} ${outcome.completed ? 'completed' : `NOT completed (${outcome.status})`} in ${seconds(outcome.durationMs)} with ${outcome.kills.length} kills`,
        );
      }
      while (nextPlan < plans.length && !interrupted) {
        const plan = plans[nextPlan++]!;
        const outcome = await runSafely(plan, slot);
        outcomes.push(outcome);
        log(
          `${runLabel(plan)} ${outcome.completed ? 'completed' : `NOT completed (${outcome.rootStatus})`} in ${seconds(outcome.durationMs)}${outcome.notes.length ? `: ${outcome.notes.join('; ')}` : ''}`,
        );
      }
    }),
  );
  outcomes.sort((left, right) => left.plan.index - right.plan.index);
  scriptOutcomes.sort((left, right) => left.plan.index - right.plan.index);

  // Second read: every worker SIGKILLed and started again, so each conversation is rebuilt by a new
  // process replaying the agent's history, and compared with the first read.
  log('second read of every transcript, after restarting every worker');
  await env.restartAllWorkers();
  const reader = new SubagentsClient(env.temporal);
  for (const agent of [...outcomes, ...scriptOutcomes].flatMap((outcome) => outcome.agents)) {
    const second = await retrying(
      `second read of ${agent.agentId}`,
      () => reader.getAgent(agent.agentId).messages(),
      90_000,
    )
      .then((messages) => canonical(messages))
      .catch((error: unknown) => `unreadable: ${String(error)}`);
    if (second !== canonical(agent.messages))
      agent.mismatches.push('second read after a worker restart differs from the first');
  }

  console.log(formatTable(outcomes));
  for (const line of formatDetails(outcomes)) console.log(line);
  if (scriptOutcomes.length > 0) {
    console.log(`\n${formatScriptTable(scriptOutcomes)}`);
    for (const line of formatScriptDetails(scriptOutcomes)) console.log(line);
  }
  const unexpectedExits = env.slots.flatMap((slot) => slot.unexpectedExits);
  console.log(
    `disruptions: ${outcomes.filter((outcome) => outcome.disruptedAtMs !== undefined).length}/${outcomes.length} kill points reached; ` +
      `${env.workerKills} worker SIGKILLs, ${env.serverRestarts} dev server restarts, ${unexpectedExits.length} workers exited on their own` +
      `${unexpectedExits.length ? ` (${unexpectedExits.join('; ')})` : ''}; seed ${seed}`,
  );
  // Replacements are started ahead (warm: modules loaded), so "recovered" is what the crash cost, not a process start.
  const figures = (pick: (slot: WorkerSlot) => number[]) => {
    const values = env.slots.flatMap(pick).sort((left, right) => left - right);
    return { p50: values[Math.floor(values.length / 2)] ?? 0, max: values.at(-1) ?? 0 };
  };
  const workerStartMs = { load: figures((slot) => slot.loadMs), activate: figures((slot) => slot.activateMs) };
  console.log(
    `worker processes: ${env.slots.reduce((total, slot) => total + slot.generation, 0)} started; loading modules (spawn → loaded, ahead of the kill) median ${seconds(workerStartMs.load.p50)}, max ${seconds(workerStartMs.load.max)}; ` +
      `connecting and creating the worker once told to run (after the kill) median ${seconds(workerStartMs.activate.p50)}, max ${seconds(workerStartMs.activate.max)}`,
  );
  const scriptRuns: ScriptRunsSummary = summarizeScriptRuns(scriptOutcomes);
  const summary = { ...summarize(outcomes, seed, Date.now() - startedAt), workerStartMs, scriptRuns };
  const passed =
    summary.runs === runCount &&
    summary.completed === summary.runs &&
    summary.lostToolResults === 0 &&
    summary.duplicatedBashRuns === 0 &&
    summary.transcriptMismatches === 0 &&
    scriptRunsPassed(scriptRuns, scriptRunCount);
  exitCode = passed ? 0 : 1;
  await env.close();
  if (keep) log(`kept ${env.dir}`);
  console.log(JSON.stringify(summary));
} catch (error) {
  log(`the suite failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await env.close().catch(() => undefined);
  console.log(
    JSON.stringify({
      ...summarize(outcomes, seed, Date.now() - startedAt),
      scriptRuns: summarizeScriptRuns(scriptOutcomes),
    }),
  );
}
process.exit(exitCode);
