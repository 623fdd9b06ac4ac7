// The chaos suite's script runs (docs/chaos.md, "Script runs"): a 30-agent orchestration script
// (20 readers in parallel, then a pipeline of 10 checks), and where its worker gets killed.
import path from 'node:path';
import type { Prng } from './prng';

/** Readers the script runs in parallel (phase "Read"). */
export const readerCount = 20;
/** Readers' answers sent through the pipeline's agent stage (phase "Check"). */
export const checkCount = 10;
/** `agent()` calls of one script run. */
export const agentCallCount = readerCount + checkCount;
/** First model requests of a run when nothing is retried: two turns per agent (its Bash, its answer). */
const requestsPerRun = agentCallCount * 2;
/** How long each agent's Bash sleeps after its echo: a window for a kill to land while a Bash runs. */
export const scriptBashSleepSeconds = 1;

const pad = (value: number) => String(value).padStart(2, '0');
/** The keys of a run's calls, in the script's order: `read-01`…`read-20`, then `check-01`…`check-10`. */
export const callKeys: readonly string[] = [
  ...Array.from({ length: readerCount }, (_, index) => `read-${pad(index + 1)}`),
  ...Array.from({ length: checkCount }, (_, index) => `check-${pad(index + 1)}`),
];

/** A kill, fired once the run has made this much progress (observed from outside the worker). */
export type ScriptKillTrigger =
  /** The model server received this many requests from the run's agents (retries included). */
  | { on: 'model-requests'; count: number }
  /** This many marker lines of the run are in its markers file (the Bash that wrote the last one is sleeping). */
  | { on: 'markers'; count: number };

export interface ScriptRunPlan {
  /** 1-based. */
  index: number;
  /** `s01`, `s02`, …: the run's label in the tables and its temp dir. */
  label: string;
  /** The run's workflow ID; its agents are `<runId>.<n>` in call order. */
  runId: string;
  /** In the order they fire: each is watched for only after the one before it is over. */
  kills: ScriptKillTrigger[];
  /** delayMs of each agent's two model turns, by call key. */
  delays: Record<string, [number, number]>;
}

export function describeScriptKill(trigger: ScriptKillTrigger): string {
  return trigger.on === 'model-requests'
    ? `after ${trigger.count} model requests`
    : `after ${trigger.count} Bash markers`;
}

/**
 * The plan of every script run, from the seed alone (its own PRNG, so the tree runs' plans stay those
 * of the seed). Each kill is a point of the run's progress, 2–90 % of the way, at least 15 % after the one before.
 */
export function buildScriptPlans(prng: Prng, runs: number, killsPerRun: number, seed: number): ScriptRunPlan[] {
  return Array.from({ length: runs }, (_, offset) => {
    const index = offset + 1;
    const label = `s${pad(index)}`;
    const points: number[] = [];
    for (let kill = 0; kill < killsPerRun; kill++) {
      const floor = kill === 0 ? 0.02 : points[kill - 1]! + 0.15;
      points.push(Math.min(0.95, floor + prng.next() * Math.max(0, 0.9 - floor)));
    }
    const kills = points.map((point): ScriptKillTrigger =>
      prng.next() < 0.5
        ? { on: 'model-requests', count: Math.max(1, Math.round(point * requestsPerRun)) }
        : { on: 'markers', count: Math.max(1, Math.round(point * agentCallCount)) },
    );
    const delays = Object.fromEntries(
      callKeys.map((key) => [key, [prng.int(100, 300), prng.int(100, 300)] as [number, number]]),
    );
    return { index, label, runId: `chaos-${seed.toString(16)}-${label}`, kills, delays };
  });
}

/** A run's workspace: its agents' cwd. */
export const scriptWorkspace = (dir: string, plan: ScriptRunPlan): string => path.join(dir, plan.label, 'workspace');
/** Inside the workspace: Bash runs sandboxed to it (docs/security.md), so a file beside it would stay unwritten. */
export const scriptMarkersFile = (dir: string, plan: ScriptRunPlan): string =>
  path.join(scriptWorkspace(dir, plan), 'script-markers.log');

/** The text in a call's prompt that the scripted model matches it by: unique to the run and the call. */
export const callToken = (runId: string, key: string): string => `[${runId} ${key}]`;

/** Prefix of every marker line of a run: `SR-MARK <runId> <key> <agentId>`. */
export const markerPrefix = (runId: string): string => `SR-MARK ${runId} `;

/** The script every run executes; `args` names its run and its calls. */
export const chaosScriptSource = `export const meta = {
  name: 'chaos-fan-out',
  description: 'chaos suite: ${readerCount} readers in parallel, then a pipeline of ${checkCount} checks',
  phases: [{ title: 'Read' }, { title: 'Check' }],
};
const prompt = (key, task) => 'CHAOS-SR [' + args.runId + ' ' + key + '] ' + task;
phase('Read');
const read = await parallel(args.readers.map((key) => () => agent(prompt(key, 'append your marker, then answer'), { label: key })));
phase('Check');
const checked = await pipeline(
  read.slice(0, args.checks.length),
  (text, item, index) => agent(prompt(args.checks[index], 'check "' + text + '"'), { label: args.checks[index] }),
  (answer) => String(answer).toUpperCase(),
);
log('read ' + read.length + ', checked ' + checked.length);
return { read, checked };
`;

/** The script's `args` for a run. */
export const scriptArgs = (plan: ScriptRunPlan) => ({
  runId: plan.runId,
  readers: callKeys.slice(0, readerCount),
  checks: callKeys.slice(readerCount),
});

/** A call's final answer (the value its `agent()` resolves to). */
const answerOf = (key: string) => `${key} done`;

/** The run's return value when every call ran. */
export const expectedResult = () => ({
  read: callKeys.slice(0, readerCount).map(answerOf),
  checked: callKeys.slice(readerCount).map((key) => answerOf(key).toUpperCase()),
});

type ScriptedTurn = { text?: string; toolUses?: { name: string; input: Record<string, unknown> }[]; delayMs?: number };

/**
 * The scripted model's answers for one run's 30 calls, matched by the token in their prompts: one
 * Bash that appends the call's marker line (with its agentId, filled in by the model server) and
 * sleeps, then the answer.
 */
export function scriptScenarioEntries(
  plan: ScriptRunPlan,
  markersFile: string,
): { match: { userIncludes: string }; turns: ScriptedTurn[] }[] {
  return callKeys.map((key) => {
    const [first, second] = plan.delays[key]!;
    const command = `echo '${markerPrefix(plan.runId)}${key} {{agent_id}}' >> '${markersFile}'; sleep ${scriptBashSleepSeconds}`;
    return {
      match: { userIncludes: callToken(plan.runId, key) },
      turns: [
        { toolUses: [{ name: 'Bash', input: { command, description: `append the ${key} marker` } }], delayMs: first },
        { text: answerOf(key), delayMs: second },
      ],
    };
  });
}

/** Marker lines per call key, and lines naming no key of the run; with the agentIds each key's lines carry. */
export function countMarkers(
  runId: string,
  text: string,
): { counts: Map<string, number>; agentIds: Map<string, string[]>; strays: string[] } {
  const counts = new Map<string, number>();
  const agentIds = new Map<string, string[]>();
  const strays: string[] = [];
  const prefix = markerPrefix(runId);
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const [key = '', agentId = ''] = line.slice(prefix.length).trim().split(' ');
    if (!callKeys.includes(key)) {
      strays.push(line);
      continue;
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
    agentIds.set(key, [...(agentIds.get(key) ?? []), agentId]);
  }
  return { counts, agentIds, strays };
}
