// npm run bench:cancel — stop the root of a busy tree: stop request → last agent of the tree closed, and visibility at 0 running; interrupt a root inside a Bash command → its result; interrupt a root waiting on the model → its result and its request cut.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentHandle } from '../src/client/client';
import { createBenchEnv } from './helpers/bench-env';
import { agentsThatCalled, requestsOf } from './helpers/model-log';
import { ms, waitFor } from './helpers/wait';

/**
 * root → middles → leaves: 1 + 3 + 3·2 = 10 and 1 + 7 + 7·6 = 50 agents. Every third middle and
 * every second leaf run in the background, the others in the foreground of their parent's turn.
 * In "50+bash", 10 of the leaves are running a long Bash command when the stop comes.
 */
const trees = [
  { label: '10', size: 10, middles: 3, leavesPerMiddle: 2, bashLeaves: 0 },
  { label: '50', size: 50, middles: 7, leavesPerMiddle: 6, bashLeaves: 0 },
  { label: '50+bash', size: 50, middles: 7, leavesPerMiddle: 6, bashLeaves: 10 },
];
const leafDelayMs = Number(process.env.BENCH_LEAF_DELAY_MS ?? 500);
/** Roots interrupted while their Bash command runs, one after the other (interrupt → the turn's end). */
const interrupts = 6;
const limits = { maxChildrenPerAgent: 60, maxAgentsPerTree: 60, defaultMaxTurns: 1000 };
const model = 'claude-test-tiny';

const agentCall = (description: string, prompt: string, background: boolean) => ({
  name: 'Agent',
  input: { description, prompt, subagent_type: 'general-purpose', ...(background ? { run_in_background: true } : {}) },
});
const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: [
      ...trees.map((tree) => ({
        match: { agentName: `cancel-root-${tree.label}` },
        turns: [
          {
            toolUses: range(tree.middles).map((index) =>
              agentCall(`middle ${index}`, `cancel middle ${tree.label}/${index}: spawn your leaves`, index % 3 === 0),
            ),
          },
          { text: 'never reached' },
        ],
      })),
      ...trees.flatMap((tree) =>
        range(tree.middles).map((middle) => ({
          match: { userIncludes: `cancel middle ${tree.label}/${middle}:` },
          turns: [
            {
              toolUses: range(tree.leavesPerMiddle).map((index) => {
                const bash = (middle - 1) * tree.leavesPerMiddle + index <= tree.bashLeaves;
                return agentCall(
                  `leaf ${index}`,
                  bash ? 'cancel leaf running bash' : `cancel leaf ${tree.label}: keep globbing`,
                  index % 2 === 0,
                );
              }),
            },
            { text: 'waiting for the leaves' },
            { text: 'never reached' },
          ],
        })),
      ),
      // Interrupted roots: each runs one long command until it is interrupted.
      ...range(interrupts).map((index) => ({
        match: { agentName: `interrupt-bash-${index}` },
        turns: [
          { toolUses: [{ name: 'Bash', input: { command: `echo $$ > interrupt-${index}.pid; sleep 600` } }] },
          { text: 'never reached' },
        ],
      })),
      // Roots interrupted while they wait on the model: the request is cut on the worker at once.
      ...range(interrupts).map((index) => ({
        match: { agentName: `interrupt-model-${index}` },
        turns: [{ text: 'never reached', delayMs: 60_000 }],
      })),
      // Bash leaves are inside a long command when the stop comes.
      {
        match: { userIncludes: 'cancel leaf running bash' },
        turns: [{ toolUses: [{ name: 'Bash', input: { command: 'sleep 600' } }] }, { text: 'never reached' }],
      },
      // Other leaves keep working until stopped: a cheap Glob every turn.
      {
        match: { userIncludes: 'cancel leaf' },
        turns: Array.from({ length: 1000 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: leafDelayMs,
        })),
      },
    ],
  },
});

const countRunning = async (rootId: string) =>
  (await env.temporalClient.workflow.count(`RootAgentId = '${rootId}' AND ExecutionStatus = 'Running'`)).count;

/** Describes every agent once: statuses and close times (server clock). */
async function describeAll(agentIds: string[]) {
  return Promise.all(
    agentIds.map(async (agentId) => {
      const description = await env.client.getAgent(agentId).describe();
      return { agentId, status: description.status.name, closeTime: description.closeTime?.getTime() };
    }),
  );
}

interface TreeRun {
  label: string;
  size: number;
  setupMs: number;
  stopCallMs: number;
  /** Last leaf, last middle, root: where the time of the cascade goes. */
  leavesClosedMs: number;
  middlesClosedMs: number;
  rootClosedMs: number;
  stopToAllClosedMs: number;
  visibilityZeroMs: number;
  statuses: Record<string, number>;
  allClosed: boolean;
}

async function runTree(tree: (typeof trees)[number]): Promise<TreeRun> {
  const started = Date.now();
  const root: AgentHandle = await env.client.startAgent({
    prompt: `cancel benchmark, ${tree.label} agents`,
    name: `cancel-root-${tree.label}`,
    cwd: env.workspace,
    model,
    permissionMode: 'bypassPermissions',
    limits,
  });
  const middles = range(tree.middles).map((index) => `${root.agentId}.${index}`);
  const ids = [
    root.agentId,
    ...middles.flatMap((middle) => [middle, ...range(tree.leavesPerMiddle).map((index) => `${middle}.${index}`)]),
  ];
  if (ids.length !== tree.size) throw new Error(`tree shape gives ${ids.length} agents, expected ${tree.size}`);
  const called = new Set<string>();
  await waitFor(
    () => {
      for (const agentId of agentsThatCalled(env.modelServer)) called.add(agentId);
      // The log is copied on every read and the leaves keep adding to it: keep it short.
      env.modelServer.clearRequests();
      return ids.every((agentId) => called.has(agentId));
    },
    180_000,
    `all ${tree.size} agents of ${root.agentId} to make a model request`,
    200,
  ).catch(async (error: Error) => {
    const missing = ids.filter((agentId) => !called.has(agentId));
    const states = await Promise.all(
      missing.map((agentId) =>
        env.client
          .getAgent(agentId)
          .describe()
          .then(
            (description) => description.status.name,
            () => 'not started',
          ),
      ),
    );
    throw new Error(
      `${error.message} Without a model request: ${missing.map((agentId, index) => `${agentId} (${states[index]})`).join(', ')}.`,
    );
  });
  const setupMs = Date.now() - started;

  const stopAt = Date.now();
  await root.stop({ by: 'bench', reason: 'cancel benchmark' });
  const stopCallMs = Date.now() - stopAt;
  // One visibility query per poll (not a describe per agent), so polling does not slow the cascade down much.
  const visibilityZeroMs = await waitFor(
    async () => (await countRunning(root.agentId)) === 0,
    120_000,
    `visibility to show 0 running agents in ${root.agentId}`,
    50,
  ).then(
    () => Date.now() - stopAt,
    (error: Error) => {
      console.error(error.message);
      return Number.NaN;
    },
  );
  // Visibility is eventually consistent: confirm with describe, which reads the executions themselves.
  let described = await describeAll(ids);
  await waitFor(
    async () => {
      described = await describeAll(ids);
      return described.every((agent) => agent.status !== 'RUNNING');
    },
    60_000,
    `every agent of ${root.agentId} to be closed by describe()`,
    500,
  ).catch(() => undefined);
  const inTree = (await env.temporalClient.workflow.count(`RootAgentId = '${root.agentId}'`)).count;
  if (inTree !== tree.size)
    throw new Error(`visibility lists ${inTree} agents with RootAgentId ${root.agentId}, expected ${tree.size}`);

  const statuses: Record<string, number> = {};
  for (const agent of described) statuses[agent.status] = (statuses[agent.status] ?? 0) + 1;
  const closeTimes = described.map((agent) => agent.closeTime ?? Number.NaN);
  const allClosed = described.every((agent) => agent.status !== 'RUNNING' && agent.closeTime !== undefined);
  const depthOf = (agentId: string) => agentId.split('.').length - 1;
  const lastClosedAt = (depth: number) =>
    Math.max(
      ...described.filter((agent) => depthOf(agent.agentId) === depth).map((agent) => agent.closeTime ?? Number.NaN),
    ) - stopAt;
  return {
    label: tree.label,
    size: tree.size,
    setupMs,
    stopCallMs,
    leavesClosedMs: lastClosedAt(2),
    middlesClosedMs: lastClosedAt(1),
    rootClosedMs: lastClosedAt(0),
    stopToAllClosedMs: allClosed ? Math.max(...closeTimes) - stopAt : Number.NaN,
    visibilityZeroMs,
    statuses,
    allClosed,
  };
}

/**
 * Interrupt → the agent's result, for a root inside a Bash command: how soon the command is killed
 * and the turn answered. Each interrupt comes at a different point of the command's heartbeat second.
 */
async function interruptBash(index: number): Promise<number> {
  const pidFile = path.join(env.workspace, `interrupt-${index}.pid`);
  const handle = await env.client.startAgent({
    prompt: 'run a long command',
    name: `interrupt-bash-${index}`,
    cwd: env.workspace,
    model,
    permissionMode: 'bypassPermissions',
  });
  await waitFor(
    () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
    60_000,
    `the command of interrupt-bash-${index} to start`,
    20,
  );
  await new Promise((resolve) => setTimeout(resolve, 300 + (index * 1000) / interrupts));
  const at = Date.now();
  await handle.interrupt({ by: 'bench', reason: 'interrupt benchmark' });
  const result = await handle.result();
  if (result.status !== 'interrupted')
    throw new Error(`interrupt-bash-${index} ended ${result.status}, expected interrupted`);
  return Date.now() - at;
}

/**
 * Interrupt → the agent's result, for a root waiting on the model, and interrupt → the model server
 * seeing the request closed (`abortedAt`): the turn's local abort cuts it (before: it streamed on until
 * the answer to a heartbeat, up to 24 s, or its end).
 */
async function interruptModel(index: number): Promise<{ resultMs: number; cutMs: number }> {
  const name = `interrupt-model-${index}`;
  const handle = await env.client.startAgent({
    prompt: 'think for long',
    name,
    cwd: env.workspace,
    model,
    permissionMode: 'bypassPermissions',
  });
  const request = () => requestsOf(env.modelServer, handle.agentId)[0];
  await waitFor(() => request() !== undefined, 60_000, `the model call of ${name}`, 20);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const at = Date.now();
  await handle.interrupt({ by: 'bench', reason: 'interrupt benchmark' });
  const result = await handle.result();
  if (result.status !== 'interrupted') throw new Error(`${name} ended ${result.status}, expected interrupted`);
  const resultMs = Date.now() - at;
  const cutMs = await waitFor(
    () => request()?.abortedAt !== undefined,
    60_000,
    `the model server to see the request of ${name} closed`,
    10,
  ).then(
    () => request()!.abortedAt! - at,
    () => Number.NaN,
  );
  return { resultMs, cutMs };
}

const p50AndMax = (values: number[]) => {
  const sorted = [...values].sort((left, right) => left - right);
  return { p50: sorted[Math.floor(sorted.length / 2)]!, max: sorted[sorted.length - 1]! };
};

try {
  const runs: TreeRun[] = [];
  for (const tree of trees) runs.push(await runTree(tree));
  const interruptMs: number[] = [];
  for (const index of range(interrupts)) interruptMs.push(await interruptBash(index));
  const modelInterrupts: { resultMs: number; cutMs: number }[] = [];
  for (const index of range(interrupts)) modelInterrupts.push(await interruptModel(index));

  console.log(
    `stop the root of a busy tree (leaves: a Glob every ${leafDelayMs} ms model delay); ms from the stop request`,
  );
  console.log(
    `${'agents'.padStart(8)}${['setup', 'stop call', 'leaves closed', 'middles closed', 'root closed', 'all closed', 'visibility 0'].map((label) => label.padStart(15)).join('')}  statuses`,
  );
  for (const run of runs) {
    const cells = [
      run.setupMs,
      run.stopCallMs,
      run.leavesClosedMs,
      run.middlesClosedMs,
      run.rootClosedMs,
      run.stopToAllClosedMs,
      run.visibilityZeroMs,
    ];
    const statuses = Object.entries(run.statuses)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ');
    console.log(
      `${run.label.padStart(8)}${cells.map((value) => String(ms(value)).padStart(15)).join('')}  ${statuses}`,
    );
  }
  const interruptBashMs = p50AndMax(interruptMs);
  console.log(
    `interrupt a root inside a Bash command → its result (ms, ${interrupts} runs): ${interruptMs.join(' ')}; p50 ${interruptBashMs.p50}, max ${interruptBashMs.max}`,
  );
  const interruptModelMs = p50AndMax(modelInterrupts.map((run) => run.resultMs));
  const modelCallCutMs = p50AndMax(modelInterrupts.map((run) => run.cutMs));
  console.log(
    `interrupt a root waiting on the model → its result (ms): ${modelInterrupts.map((run) => run.resultMs).join(' ')}; p50 ${interruptModelMs.p50}, max ${interruptModelMs.max}`,
  );
  console.log(
    `                                   → its request cut (ms): ${modelInterrupts.map((run) => ms(run.cutMs)).join(' ')}; p50 ${ms(modelCallCutMs.p50)}, max ${ms(modelCallCutMs.max)}`,
  );
  const bySize = (pick: (run: TreeRun) => number) => Object.fromEntries(runs.map((run) => [run.label, ms(pick(run))]));
  const allClosed = runs.every((run) => run.allClosed);
  console.log(
    JSON.stringify({
      stopToAllClosedMs: bySize((run) => run.stopToAllClosedMs),
      allClosed,
      allCancelled: runs.every((run) => run.statuses.CANCELLED === run.size),
      leavesClosedMs: bySize((run) => run.leavesClosedMs),
      middlesClosedMs: bySize((run) => run.middlesClosedMs),
      rootClosedMs: bySize((run) => run.rootClosedMs),
      visibilityRunningZeroMs: bySize((run) => run.visibilityZeroMs),
      stopCallMs: bySize((run) => run.stopCallMs),
      setupMs: bySize((run) => run.setupMs),
      interruptBashMs,
      interruptModelMs,
      modelCallCutMs,
      leafDelayMs,
    }),
  );
  if (!allClosed) {
    console.error('bench:cancel: some agents were still running after the stop (see the statuses above).');
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`bench:cancel did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await env.close();
}
