// Issue 47's rolling upgrade, on the real dev server with workers in their own processes and the real
// `subagents deploy` CLI, step by step as docs/operations.md's "Runbook" says.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workerVersionFor } from '../../src/worker/worker';
import { upgradeHopMemo } from '../../src/workflows/context/version-upgrade';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { runCli } from '../helpers/cli-process';
import { agentNamed, agentPrompted, bash, spawnInBackground } from '../helpers/scripted-agents';
import { spawnReadyProcess, type ChildWorker } from '../helpers/spawn-worker-process';
import { taskBuildIds, workflowRuns, type HistoryEvent, type WorkflowRun } from '../helpers/workflow-runs';

const repo = path.join(import.meta.dirname, '..', '..');

// ---- Version B: today's src/ with one real workflow change ------------------------------------------

/** B's change: every turn starts with a timer of this length, so B cannot replay A's histories and its runs show it. */
const markTimerMs = 321;

/**
 * Copies src/ under .tmp/ (git, eslint and prettier ignore it; packages resolve from the repository's
 * node_modules; not under node_modules, whose TypeScript the workflow bundler leaves uncompiled), makes
 * every turn start with a timer, and bundles it with the copy's own bundleAgentWorkflows, as a worker of
 * that release would. Returns the bundle's path.
 */
async function bundleVersionB(directory: string): Promise<string> {
  cpSync(path.join(repo, 'src'), path.join(directory, 'src'), { recursive: true });
  cpSync(path.join(repo, 'package.json'), path.join(directory, 'package.json'));
  const turnFile = path.join(directory, 'src', 'workflows', 'loop', 'turn.ts');
  const original = readFileSync(turnFile, 'utf8');
  const importLine = "import { CancellationScope, CancelledFailure, isCancellation } from '@temporalio/workflow';";
  const bodyLine = 'const body = async (): Promise<TurnOutcome> => {';
  // Fails loudly when turn.ts changed shape: fix the two anchors, never skip the change.
  expect(original).toContain(importLine);
  expect(original).toContain(bodyLine);
  const changed = original
    .replace(importLine, importLine.replace('isCancellation }', 'isCancellation, sleep }'))
    .replace(bodyLine, `${bodyLine}\n    await sleep(${markTimerMs});`);
  writeFileSync(turnFile, changed);
  const bundlePath = path.join(directory, 'workflow-bundle-b.js');
  // Its own process: the copy's modules, not this test's (a tsx process compiles the copy's TypeScript).
  await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { bundleAgentWorkflows } = await import(process.env.BUNDLE_FROM);
       (await import('node:fs')).writeFileSync(process.env.BUNDLE_TO, await bundleAgentWorkflows());`,
    ],
    {
      cwd: directory,
      env: {
        ...process.env,
        BUNDLE_FROM: path.join(directory, 'src', 'worker', 'worker.ts'),
        BUNDLE_TO: bundlePath,
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return bundlePath;
}

// ---- The runbook ------------------------------------------------------------------------------------

interface RunbookStep {
  /** The step's number and comment, e.g. "6. Stop the old version's workers (SIGTERM: running activities finish)". */
  comment: string;
  /** The `subagents ...` line under it, if any. */
  command?: string[];
}

/** The numbered steps of docs/operations.md's Runbook ```sh block, in order. */
function runbookSteps(): RunbookStep[] {
  const operations = readFileSync(path.join(repo, 'docs', 'operations.md'), 'utf8');
  const section = operations.slice(operations.indexOf('### Runbook'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, 'docs/operations.md has a Runbook with a ```sh block').toBeDefined();
  const steps: RunbookStep[] = [];
  for (const line of block!.split('\n').map((text) => text.trim())) {
    if (line.startsWith('# ')) steps.push({ comment: line.slice(2) });
    else if (line.startsWith('subagents ')) {
      expect(steps.at(-1)?.command, `one command per runbook step: ${line}`).toBeUndefined();
      steps.at(-1)!.command = line.split(/\s+/).slice(1);
    } else expect(line, 'the runbook block holds comments and subagents commands only').toBe('');
  }
  return steps;
}

/** What each runbook step is, for the check that the test runs the runbook's steps in the runbook's order. */
function stepKind(step: RunbookStep): string {
  if (!step.command) return /^\d+\. Stop the old version's workers/.test(step.comment) ? 'stop old workers' : '?';
  return step.command[0] === 'deploy' ? `deploy ${step.command[1]}` : step.command[0]!;
}

/** The runbook's words with its placeholders filled in. */
function filled(command: string[], values: Record<'NAME' | 'NEW_BUILD' | 'OLD_BUILD', string>): string[] {
  return command.map((word) => (word in values ? values[word as keyof typeof values] : word));
}

/** The value of `--flag` in a command line. */
function flagValue(command: string[], flag: string): string | undefined {
  const at = command.indexOf(flag);
  return at >= 0 ? command[at + 1] : undefined;
}

// ---- Reading what ran where ------------------------------------------------------------------------

/** A run chain in one line for a failure message: each run's task build ids, its last events, its status text. */
async function describeRuns(env: AgentTestEnv, workflowId: string): Promise<string> {
  const runs = await workflowRuns(env.temporal.client, workflowId);
  const type = (event: HistoryEvent) => String(event.eventType);
  return runs
    .map(
      (run) =>
        `${run.runId} hop=${String(run.memo[upgradeHopMemo] ?? '-')} builds=${[...new Set(taskBuildIds(run))].join(',')} ` +
        `last events=${run.events.slice(-6).map(type).join(',')}`,
    )
    .join(' | ');
}

/** Whether B's turn-start timer is in the run. */
function hasMarkTimer(run: WorkflowRun): boolean {
  return run.events.some((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout != null && Number(timeout.seconds ?? 0) === 0 && timeout.nanos === markTimerMs * 1_000_000;
  });
}

/**
 * The WorkflowTaskFailed events of the runs, described for the failure message. UnhandledCommand is left out: the server
 * refuses a completion because a signal came meanwhile and the task runs again with it, a race, not a version fault.
 */
function failedTasks(workflowId: string, runs: WorkflowRun[]): string[] {
  return runs.flatMap((run) =>
    run.events
      .filter(
        (event) =>
          event.workflowTaskFailedEventAttributes &&
          event.workflowTaskFailedEventAttributes.failure?.message !== 'UnhandledCommand',
      )
      .map(
        (event) =>
          `${workflowId} run ${run.runId} event ${String(event.eventId)}: ${event.workflowTaskFailedEventAttributes?.failure?.message ?? '?'}`,
      ),
  );
}

// ---- The scenario ----------------------------------------------------------------------------------

let bundleB = '';
let copyDirectory = '';

beforeAll(async () => {
  copyDirectory = path.join(repo, '.tmp', `rolling-upgrade-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(copyDirectory, { recursive: true });
  bundleB = await bundleVersionB(copyDirectory);
}, 180_000);

afterAll(() => {
  if (copyDirectory) rmSync(copyDirectory, { recursive: true, force: true });
});

/** A versioned agent worker in its own process (`node --import tsx`: its pid is the worker's), on the env's queue. */
function startVersionedWorker(
  env: AgentTestEnv,
  bundlePath: string,
  version: { deploymentName: string; buildId?: string },
): Promise<ChildWorker> {
  return spawnReadyProcess(path.join(repo, 'test', 'helpers', 'worker-process.ts'), {
    TEMPORAL_ADDRESS: env.temporal.address,
    SUBAGENTS_TASK_QUEUE: env.taskQueue,
    ANTHROPIC_BASE_URL: env.modelServer.url,
    WORKFLOW_BUNDLE_PATH: bundlePath,
    SUBAGENTS_DEPLOYMENT: version.deploymentName,
    ...(version.buildId ? { SUBAGENTS_BUILD_ID: version.buildId } : {}),
  });
}

interface DeployStatus {
  currentBuildId?: string;
  ramping?: { buildId: string; percentage: number };
  versions: { buildId: string; status: string; drainage?: string; runningAgents: number }[];
}

/** Runs a runbook command (`subagents deploy ...`) through the real CLI, with `--json` added; its parsed output. */
async function deploy<T>(env: AgentTestEnv, command: string[]): Promise<T> {
  const run = await runCli(env, [...command, '--json']);
  expect(run.code, `subagents ${command.join(' ')}: ${run.stderr}${run.stdout}`).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

const childCount = 2;

function scriptTree(env: AgentTestEnv): void {
  env.script(
    agentNamed('rolling-root', [
      {
        toolUses: Array.from({ length: childCount }, (_, index) =>
          spawnInBackground(`child ${index + 1}`, `CHILD-${index + 1}-WORK`),
        ),
      },
      { text: 'ROOT-STARTED' },
      // A notification per child (or one for both) and then the new message: each answer quotes what it got.
      ...Array.from({ length: 6 }, () => ({ text: 'ROOT-SAYS: {{last_user_text}}' })),
    ]),
    ...Array.from({ length: childCount }, (_, index) =>
      agentPrompted(`CHILD-${index + 1}-WORK`, [
        // A slow model call, a Bash that holds until the test opens the gate (so the child still runs at promote), a second call.
        {
          delayMs: 1500,
          toolUses: [
            bash(`touch started-${index + 1}; until [ -e gate ]; do sleep 0.2; done; echo CHILD-${index + 1}-BASH`),
          ],
        },
        { text: `CHILD-${index + 1}-DONE` },
      ]),
    ),
    agentNamed('rolling-fresh', [{ text: 'FRESH-DONE' }]),
  );
}

async function rollingUpgrade(env: AgentTestEnv, options: { killOldMidRollout: boolean }): Promise<void> {
  const steps = runbookSteps();
  // The runbook and this test go together: the same steps, in the same order.
  expect(steps.map(stepKind)).toEqual([
    'worker',
    'deploy status',
    'deploy ramp',
    'deploy promote',
    'deploy drain',
    'stop old workers',
  ]);
  const [startNew, status, ramp, promote, drain] = steps.map((step) => step.command!) as [
    string[],
    string[],
    string[],
    string[],
    string[],
  ];
  const deploymentName = `rolling-${env.taskQueue}`;
  const bundleA = inject('workflowBundlePath');
  const expectedA = workerVersionFor(deploymentName, undefined, readFileSync(bundleA, 'utf8')).buildId;
  const expectedB = workerVersionFor(deploymentName, undefined, readFileSync(bundleB, 'utf8')).buildId;
  expect(expectedB).not.toBe(expectedA);

  // Version A: the first version of the deployment makes itself current.
  let workerA = await startVersionedWorker(env, bundleA, { deploymentName });
  const workers: ChildWorker[] = [workerA];
  try {
    let before: DeployStatus | undefined;
    await waitFor(
      async () => {
        before = await deploy<DeployStatus>(
          env,
          filled(status, { NAME: deploymentName, NEW_BUILD: '', OLD_BUILD: '' }),
        );
        return before.currentBuildId !== undefined;
      },
      60_000,
      'version A current',
    );
    const buildA = before!.currentBuildId!;
    expect(buildA).toBe(expectedA);
    const names = (buildB: string) => ({ NAME: deploymentName, NEW_BUILD: buildB, OLD_BUILD: buildA });

    // A tree on A: an interactive root with background children that hold at their gate.
    scriptTree(env);
    const root = await env.start({ prompt: 'ROLLING', name: 'rolling-root', interactive: { idleTimeoutMs: 600_000 } });
    const childIds = Array.from({ length: childCount }, (_, index) => `${root.agentId}.${index + 1}`);
    await waitFor(async () => (await root.status()).latestText === 'ROOT-STARTED', 60_000, 'the root answered');
    await waitFor(
      () => childIds.every((_, index) => existsSync(path.join(env.workspace, `started-${index + 1}`))),
      60_000,
      'both children at their gate',
    );

    // 1. Start the new version beside the old one.
    expect(startNew.slice(0, 1)).toEqual(['worker']);
    const newFlags = filled(startNew, names(''));
    const workerB = await startVersionedWorker(env, bundleB, {
      deploymentName: flagValue(newFlags, '--deployment')!,
      ...(flagValue(newFlags, '--build-id') ? { buildId: flagValue(newFlags, '--build-id')! } : {}),
    });
    workers.push(workerB);

    // 2. See both versions, and how many agents each runs (the new one registers on its first poll).
    let both: DeployStatus | undefined;
    await waitFor(
      async () => {
        both = await deploy<DeployStatus>(env, filled(status, names('')));
        return both.versions.length === 2;
      },
      60_000,
      'version B listed',
    );
    const buildB = both!.versions.find((version) => version.buildId !== buildA)!.buildId;
    expect(buildB).toBe(expectedB);
    expect(both!.currentBuildId).toBe(buildA);
    await waitFor(
      async () => {
        const now = await deploy<DeployStatus>(env, filled(status, names(buildB)));
        return now.versions.find((version) => version.buildId === buildA)?.runningAgents === 1 + childCount;
      },
      30_000,
      'status counting the tree on A',
    );

    // 3. A share of new agents to B first.
    const ramped = await deploy<{ ramping: { buildId: string; percentage: number } }>(env, filled(ramp, names(buildB)));
    expect(ramped.ramping).toEqual({ buildId: buildB, percentage: Number(flagValue(ramp, '--percent')) });
    expect((await deploy<DeployStatus>(env, filled(status, names(buildB)))).ramping?.buildId).toBe(buildB);

    // 4. B current: the tree's agents are told.
    const promoted = await deploy<{ currentBuildId: string; signalled: number }>(env, filled(promote, names(buildB)));
    expect(promoted.currentBuildId).toBe(buildB);
    expect(promoted.signalled).toBe(1 + childCount);

    if (options.killOldMidRollout) {
      // A dies while its children run (held at their gate): they wait for a worker of their version.
      await workerA.kill('SIGKILL');
    }

    // A new agent starts on B and runs B's code.
    const fresh = await env.start({ prompt: 'FRESH', name: 'rolling-fresh' });
    expect((await fresh.result()).finalText).toBe('FRESH-DONE');

    await writeFile(path.join(env.workspace, 'gate'), '');
    if (options.killOldMidRollout) {
      // Nothing of A's tree moved without A: the children still run, nothing failed.
      for (const childId of childIds) {
        const runs = await workflowRuns(env.temporal.client, childId);
        expect((await env.temporal.client.workflow.getHandle(childId).describe()).status.name).toBe('RUNNING');
        expect(failedTasks(childId, runs)).toEqual([]);
      }
      // The runbook's note: a new worker of the old build, same code.
      workerA = await startVersionedWorker(env, bundleA, { deploymentName, buildId: buildA });
      workers.push(workerA);
    }

    // 5. Wait until no agent is pinned to A.
    const drained = await deploy<{ drainage: string | null; runningAgents: string[] }>(
      env,
      filled(drain, names(buildB)),
    );
    expect(drained).toMatchObject({ drainage: 'drained', runningAgents: [] });

    // 6. Stop A's workers (SIGTERM).
    await workerA.kill('SIGTERM');

    // Every agent finished correctly.
    for (const [index, childId] of childIds.entries()) {
      const result = (await env.temporal.client.workflow.getHandle(childId).result()) as { finalText: string };
      expect(result.finalText).toBe(`CHILD-${index + 1}-DONE`);
    }
    // The root, now on B, answers a new message there.
    await env.client.send(root.agentId, 'NEW-MESSAGE-ON-B');
    await waitFor(
      // The message reaches the model wrapped (<message from="user">): the answer quotes it.
      async () => /^ROOT-SAYS: [\s\S]*NEW-MESSAGE-ON-B/.test((await root.status()).latestText ?? ''),
      60_000,
      'the root answered on B',
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; the root's runs: ${await describeRuns(env, root.agentId)}`);
    });
    await root.close();
    expect((await root.result()).finalText).toMatch(/^ROOT-SAYS: [\s\S]*NEW-MESSAGE-ON-B/);

    // Each on the version the policy says.
    const rootRuns = await workflowRuns(env.temporal.client, root.agentId);
    const childRuns = await Promise.all(childIds.map((childId) => workflowRuns(env.temporal.client, childId)));
    const freshRuns = await workflowRuns(env.temporal.client, fresh.agentId);
    // The children are pinned: one run each, every task on A, no B timer.
    for (const runs of childRuns) {
      expect(runs).toHaveLength(1);
      expect(new Set(taskBuildIds(runs[0]!))).toEqual(new Set([buildA]));
      expect(hasMarkTimer(runs[0]!)).toBe(false);
    }
    // The root: its runs on A, then the hop (on A, auto-upgrade, one task), then its last run on B with B's timer.
    expect(rootRuns.length).toBeGreaterThanOrEqual(3);
    const last = rootRuns.at(-1)!;
    const hop = rootRuns.at(-2)!;
    expect(hop.memo[upgradeHopMemo]).toBe(rootRuns.at(-3)!.runId);
    expect(taskBuildIds(hop)).toEqual([buildA]);
    for (const run of rootRuns.slice(0, -1)) {
      expect(new Set(taskBuildIds(run))).toEqual(new Set([buildA]));
      expect(hasMarkTimer(run)).toBe(false);
    }
    expect(new Set(taskBuildIds(last))).toEqual(new Set([buildB]));
    expect(hasMarkTimer(last)).toBe(true);
    // The agent started after promote: on B, B's code.
    expect(freshRuns).toHaveLength(1);
    expect(new Set(taskBuildIds(freshRuns[0]!))).toEqual(new Set([buildB]));
    expect(hasMarkTimer(freshRuns[0]!)).toBe(true);
    // No workflow task failed anywhere (a killed worker's task may time out: that is no failure).
    expect([
      ...failedTasks(root.agentId, rootRuns),
      ...childIds.flatMap((childId, index) => failedTasks(childId, childRuns[index]!)),
      ...failedTasks(fresh.agentId, freshRuns),
    ]).toEqual([]);
  } finally {
    for (const worker of workers) await worker.kill('SIGKILL');
  }
}

/**
 * An environment whose own (unversioned) worker never polls: only the versioned worker processes serve the
 * queue. Its worker is created by createAgentTestEnv; run and shut down at the end, it lets go of the connection.
 */
function useVersionedOnlyEnv(): AgentTestEnv {
  let current: AgentTestEnv | undefined;
  beforeAll(async () => {
    current = await createAgentTestEnv({ kind: 'echo' }, { startWorker: false });
  });
  afterAll(async () => {
    if (!current) return;
    const running = current.worker.run();
    await waitFor(() => current!.worker.getState() === 'RUNNING', 10_000, 'the unused worker running');
    current.worker.shutdown();
    await running;
    await current.close();
  });
  return new Proxy({} as AgentTestEnv, { get: (_, key) => current![key as keyof AgentTestEnv] });
}

describe('rolling upgrade: a tree on version A, version B with a real workflow change, A drained', () => {
  const env = useVersionedOnlyEnv();

  it('moves the interactive root onto B through the hop, keeps the children on A, and fails no task', async () => {
    await rollingUpgrade(env, { killOldMidRollout: false });
  }, 300_000);
});

describe('rolling upgrade with the old version SIGKILLed mid-rollout', () => {
  const env = useVersionedOnlyEnv();

  it('holds A-pinned children until a new worker of A polls, then finishes as without the kill', async () => {
    await rollingUpgrade(env, { killOldMidRollout: true });
  }, 300_000);
});
