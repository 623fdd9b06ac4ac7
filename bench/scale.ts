// npm run bench:scale — one root starts 50 background children (and 200 agents over depth 2), each doing a
// few turns, all on ONE worker process: completion, wall time against the critical path, worker and dev-server
// RSS, and the histories the server keeps.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { SubagentsClient } from '../src/client/client';
import { startDevServer } from '../src/dev/dev-server';
import { startModelServer, type Turn } from '../src/model-server/server';
import { workflowBundlerOptions, workflowsPath } from '../src/worker/worker';
import { maxConcurrentToolCalls } from '../src/shared/protocol/limits';
import { spawnReadyProcess, spawnWorkerProcess } from '../test/helpers/spawn-worker-process';
import { firstRequestAs } from './helpers/bare-sdk';
import type { BareConversationsFile } from './helpers/bare-worker-process';
import { eventBytes } from './helpers/bench-env';
import { sampleRss } from './helpers/rss';
import { addTaskTimes, emptyTaskTimes, medianOf, taskKinds, type TaskTimes } from './helpers/task-times';
import { ms, withTimeout } from './helpers/wait';

const modelLatencyMs = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 100);
/** Turns of every leaf: two turns with a cheap tool call (a Read: no process to start, unlike Glob or Bash), then the answer. */
const leafTurns = 3;
const model = 'claude-test-tiny';
/** `middles` = 0: the root starts `leaves` children itself; otherwise it starts `middles`, each starting `leaves` grandchildren. */
const cases = [
  { label: '50', middles: 0, leaves: 50, timeoutMs: 300_000 },
  { label: '200', middles: 10, leaves: 19, timeoutMs: Number(process.env.BENCH_200_TIMEOUT_MS ?? 1_200_000) },
];
type Case = (typeof cases)[number];
const agentsOf = (scale: Case) => (scale.middles === 0 ? scale.leaves : scale.middles * (1 + scale.leaves));
/**
 * The model calls on the longest chain, one after the other: what a runtime with no overhead and unbounded
 * parallelism would need. 50: root spawns (1), a child's turns (3), root answers (1) = 5 calls. 200: root (1),
 * a middle spawns (1), a grandchild's turns (3), the middle answers (1), the root answers (1) = 7 calls.
 */
const criticalPathCalls = (scale: Case) => (scale.middles === 0 ? 1 + leafTurns + 1 : 1 + 1 + leafTurns + 1 + 1);

const spawn = (count: number, what: string): Turn => ({
  toolUses: Array.from({ length: count }, (_, index) => ({
    name: 'Agent',
    // Middles get a name: the scripted model tells them apart from leaves by it (their later turns answer notifications).
    input: {
      description: `${what} ${index + 1}`,
      prompt: `scale ${what}: work a little, then answer`,
      subagent_type: 'general-purpose',
      run_in_background: true,
      ...(what === 'middle' ? { name: `scale-middle-${index + 1}` } : {}),
    },
  })),
  delayMs: modelLatencyMs,
});
// A parent is woken by notifications of finished children, possibly one by one: enough answers for each.
const acknowledgements = (count: number): Turn[] =>
  Array.from({ length: count }, () => ({ text: 'noted', delayMs: modelLatencyMs }));
const leaf: Turn[] = [
  ...Array.from({ length: leafTurns - 1 }, (): Turn => ({
    toolUses: [{ name: 'Read', input: { file_path: 'README.md' } }],
    delayMs: modelLatencyMs,
  })),
  { text: 'leaf done', delayMs: modelLatencyMs },
];

const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-scale-')));
const workspace = path.join(directory, 'workspace');
const server = await startDevServer({ port: 0, headless: true });
const modelServer = await startModelServer({
  port: 0,
  behaviour: {
    kind: 'scripted',
    scenario: {
      agents: [
        ...cases.map((scale) => ({
          match: { agentName: `scale-${scale.label}` },
          turns:
            scale.middles === 0
              ? [spawn(scale.leaves, 'leaf'), ...acknowledgements(scale.leaves + 2)]
              : [spawn(scale.middles, 'middle'), ...acknowledgements(scale.middles + 2)],
        })),
        ...Array.from({ length: cases[1]!.middles }, (_, index) => ({
          match: { agentName: `scale-middle-${index + 1}` },
          turns: [spawn(cases[1]!.leaves, 'leaf'), ...acknowledgements(cases[1]!.leaves + 2)],
        })),
        { match: { userIncludes: 'scale leaf' }, turns: leaf },
      ],
    },
  },
});
const bundlePath = path.join(directory, 'workflow-bundle.js');
writeFileSync(
  bundlePath,
  (await bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions, logger: new DefaultLogger('WARN') })).code,
);
const bareBundlePath = path.join(directory, 'bare-workflow-bundle.js');
writeFileSync(
  bareBundlePath,
  (
    await bundleWorkflowCode({
      workflowsPath: path.join(import.meta.dirname, 'floor', 'workflows.ts'),
      logger: new DefaultLogger('WARN'),
    })
  ).code,
);
const connection = await Connection.connect({ address: server.address });
const temporal = new Client({ connection, namespace: 'default' });

interface CaseResult {
  label: string;
  agents: number;
  completed: number;
  rootStatus: string;
  wallMs: number;
  /** Start → the last agent of the tree (root excluded) closed. */
  treeDoneMs: number;
  /** Model turns of the root: one to spawn, then one per batch of notifications it was woken by. */
  rootTurns: number;
  criticalPathMs: number;
  rssPeakMb: number;
  serverRssPeakMb: number;
  histories: number;
  historyBytes: number;
  maxHistoryBytes: number;
  historyEvents: number;
  maxHistoryEvents: number;
  times: TaskTimes;
  /** The same tree as bare Temporal workflows sending the same requests, right after (the 50 case only). */
  bareSdk?: BareResult;
}

interface BareResult {
  wallMs: number;
  rssPeakMb: number;
}

/** Every agent id of the tree (root excluded), by the runtime's `<parent>.<n>` ids. */
function treeIds(rootId: string, scale: Case): string[] {
  const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);
  if (scale.middles === 0) return range(scale.leaves).map((index) => `${rootId}.${index}`);
  return range(scale.middles).flatMap((middle) => [
    `${rootId}.${middle}`,
    ...range(scale.leaves).map((index) => `${rootId}.${middle}.${index}`),
  ]);
}

/** describe() of many agents, a few at a time (the dev server is busy enough). */
async function describeMany(agentIds: string[]) {
  const out: { agentId: string; status: string; closedAt?: number }[] = [];
  for (let start = 0; start < agentIds.length; start += 20) {
    const batch = agentIds.slice(start, start + 20);
    out.push(
      ...(await Promise.all(
        batch.map((agentId) =>
          temporal.workflow
            .getHandle(agentId)
            .describe()
            .then(
              (description) => ({
                agentId,
                status: description.status.name,
                closedAt: description.closeTime?.getTime(),
              }),
              () => ({ agentId, status: 'NOT_STARTED' }),
            ),
        ),
      )),
    );
  }
  return out;
}

/** Bytes and events of every history, and the task times in them. */
async function historySizes(agentIds: string[], times: TaskTimes) {
  const sizes: { bytes: number; events: number }[] = [];
  for (let start = 0; start < agentIds.length; start += 10) {
    const batch = agentIds.slice(start, start + 10);
    sizes.push(
      ...(await Promise.all(
        batch.map(async (agentId) => {
          const events =
            (
              await temporal.workflow
                .getHandle(agentId)
                .fetchHistory()
                .catch(() => ({ events: [] }))
            ).events ?? [];
          addTaskTimes(events, times);
          return { bytes: events.reduce((sum, event) => sum + eventBytes(event), 0), events: events.length };
        }),
      )),
    );
  }
  return sizes;
}

/**
 * The 50 case again as bare Temporal workflows (bench/floor/workflows.ts, `floorServedScaleParent`) on a worker
 * process of its own started as the agent's is: the root's first request, its children started 10 at a time
 * as the runtime starts one message's Agent calls, each child's start (a local activity) and the durable
 * child's own requests with its Reads in its model calls, then the root's answer — the model calls and tool
 * functions of the agents' run, with nothing of the runtime: what the SDK and the server alone need here.
 */
async function bareScale(rootId: string, scale: Case): Promise<BareResult> {
  const key = `bare-${rootId}`;
  // The bare requests name their own agent ids (the model server's log tells them apart), as bench:spawn's do.
  const asKey = (agentId: string, bareKey: string) => ({
    key: bareKey,
    agentId,
    first: firstRequestAs(modelServer, agentId, bareKey),
  });
  const conversations: BareConversationsFile = {
    workspace,
    conversations: [
      asKey(rootId, key),
      ...treeIds(rootId, scale).map((agentId, index) => asKey(agentId, `${key}.${index + 1}`)),
    ],
  };
  const file = path.join(directory, `bare-${scale.label}.json`);
  writeFileSync(file, JSON.stringify(conversations));
  const taskQueue = `bench-scale-bare-${scale.label}`;
  const worker = await spawnReadyProcess(path.join(import.meta.dirname, 'helpers', 'bare-worker-process.ts'), {
    TEMPORAL_ADDRESS: server.address,
    BARE_TASK_QUEUE: taskQueue,
    ANTHROPIC_BASE_URL: modelServer.url,
    BARE_CONVERSATIONS_FILE: file,
    WORKFLOW_BUNDLE_PATH: bareBundlePath,
  });
  const workerRss = sampleRss(worker.process.pid!);
  try {
    const started = Date.now();
    const handle = await temporal.workflow.start('floorServedScaleParent', {
      taskQueue,
      workflowId: key,
      args: [scale.leaves, maxConcurrentToolCalls],
    });
    await withTimeout(handle.result(), scale.timeoutMs, `the bare ${scale.label} case to finish`);
    const closedAt = (await handle.describe()).closeTime?.getTime() ?? Date.now();
    return { wallMs: closedAt - started, rssPeakMb: workerRss.peakMb() };
  } finally {
    workerRss.stop();
    await worker.kill();
  }
}

async function runCase(scale: Case): Promise<CaseResult> {
  const taskQueue = `bench-scale-${scale.label}`;
  const worker = await spawnWorkerProcess({
    address: server.address,
    taskQueue,
    modelBaseUrl: modelServer.url,
    bundlePath,
  });
  const workerRss = sampleRss(worker.process.pid!);
  const serverRss = sampleRss(server.process!.pid!);
  try {
    const agents = agentsOf(scale);
    const limits = {
      maxChildrenPerAgent: Math.max(scale.leaves, scale.middles) + 5,
      maxAgentsPerTree: agents + 10,
      maxDepth: 3,
    };
    const started = Date.now();
    const root = await new SubagentsClient(temporal, taskQueue).startAgent({
      prompt: `scale benchmark, ${agents} agents`,
      name: `scale-${scale.label}`,
      cwd: workspace,
      model,
      maxTurns: agents + 20,
      permissionMode: 'bypassPermissions',
      limits,
    });
    // Waits for the root without throwing at the deadline: an unfinished case reports what did complete.
    let rootTurns = 0;
    const finished = await Promise.race([
      root.result().then((result) => {
        rootTurns = result.turns;
        return result.status;
      }),
      sleep(scale.timeoutMs).then(() => 'timed out'),
    ]);
    const description = await root.describe();
    const wallMs = (description.closeTime?.getTime() ?? Date.now()) - started;
    const ids = treeIds(root.agentId, scale);
    const statuses = await describeMany(ids);
    if (finished === 'timed out')
      await root
        .stop({ by: 'bench', reason: `bench:scale: ${scale.label} did not finish in ${scale.timeoutMs / 1000} s` })
        .catch(() => undefined);
    const times = emptyTaskTimes();
    const sizes = await historySizes([root.agentId, ...ids], times);
    // The agent's worker gone and the samplers stopped before the bare run: it has the machine to itself.
    workerRss.stop();
    serverRss.stop();
    await worker.kill();
    const bareSdk = scale.middles === 0 && finished === 'completed' ? await bareScale(root.agentId, scale) : undefined;
    return {
      label: scale.label,
      agents,
      completed: statuses.filter((entry) => entry.status === 'COMPLETED').length,
      rootStatus: finished,
      wallMs,
      treeDoneMs: Math.max(...statuses.map((entry) => entry.closedAt ?? Number.NaN)) - started,
      rootTurns,
      criticalPathMs: criticalPathCalls(scale) * modelLatencyMs,
      rssPeakMb: workerRss.peakMb(),
      serverRssPeakMb: serverRss.peakMb(),
      histories: sizes.filter((size) => size.events > 0).length,
      historyBytes: sizes.reduce((sum, size) => sum + size.bytes, 0),
      maxHistoryBytes: Math.max(...sizes.map((size) => size.bytes)),
      historyEvents: sizes.reduce((sum, size) => sum + size.events, 0),
      maxHistoryEvents: Math.max(...sizes.map((size) => size.events)),
      times,
      ...(bareSdk ? { bareSdk } : {}),
    };
  } finally {
    workerRss.stop();
    serverRss.stop();
    await worker.kill();
  }
}

try {
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'README.md'), '# scale benchmark\n');
  const results: CaseResult[] = [];
  for (const scale of cases.slice(0, Number(process.env.BENCH_SCALE_CASES ?? cases.length)))
    results.push(await runCase(scale));

  console.log(
    `scale benchmark: background agents on one worker process; every leaf ${leafTurns} turns (2 with a Read), model latency ${modelLatencyMs} ms`,
  );
  console.log(
    "critical path = model calls on the longest chain × latency (50: root, a child's 3 turns, root = 5; 200: root, middle, 3 grandchild turns, middle, root = 7)",
  );
  console.log(
    `${'agents'.padStart(7)}${['completed', 'root', 'root turns', 'wall ms', 'tree done', 'crit. path', 'wall/crit', 'worker RSS', 'server RSS', 'histories', 'total KiB', 'max KiB', 'events', 'max events'].map((label) => label.padStart(11)).join('')}`,
  );
  for (const result of results) {
    const cells = [
      `${result.completed}/${result.agents}`,
      result.rootStatus,
      result.rootTurns,
      ms(result.wallMs),
      ms(result.treeDoneMs),
      result.criticalPathMs,
      (result.wallMs / result.criticalPathMs).toFixed(1),
      `${Math.round(result.rssPeakMb)} MiB`,
      `${Math.round(result.serverRssPeakMb)} MiB`,
      result.histories,
      Math.round(result.historyBytes / 1024),
      Math.round(result.maxHistoryBytes / 1024),
      result.historyEvents,
      result.maxHistoryEvents,
    ];
    console.log(`${result.label.padStart(7)}${cells.map((value) => String(value).padStart(11)).join('')}`);
  }
  console.log('');
  console.log(
    'every agent of the tree, from the histories: median ms scheduled → started (waiting for a poller) / started → completed (on the worker)',
  );
  console.log(`${'agents'.padStart(7)}${taskKinds.map((kind) => kind.padStart(20)).join('')}`);
  for (const result of results) {
    // A kind the run never had (e.g. no setup activity task: agent starts are local activities) shows '-'.
    const shown = (value: number): string => (Number.isNaN(value) ? '-' : String(ms(value)));
    const cells = taskKinds.map(
      (kind) => `${shown(medianOf(result.times.wait[kind]))} / ${shown(medianOf(result.times.run[kind]))}`,
    );
    console.log(`${result.label.padStart(7)}${cells.map((value) => value.padStart(20)).join('')}`);
  }
  for (const result of results) {
    if (!result.bareSdk) continue;
    const { wallMs, rssPeakMb } = result.bareSdk;
    console.log(
      `bare SDK, ${result.label} case, same requests right after: wall ${ms(wallMs)} ms = ${(wallMs / result.criticalPathMs).toFixed(1)}× the critical path, worker RSS ${Math.round(rssPeakMb)} MiB; the runtime ${(result.wallMs / wallMs).toFixed(2)}× its wall`,
    );
  }
  console.log(
    'wall: start → the root closed; tree done: start → the last other agent of the tree closed (the root then still answers its notifications)',
  );
  console.log(
    'RSS: peak of VmRSS sampled every 200 ms (worker process; dev server process); histories: every agent of the tree, root included',
  );
  console.log(
    JSON.stringify(
      Object.fromEntries(
        results.map((result) => [
          result.label,
          {
            completed: result.completed,
            agents: result.agents,
            rootStatus: result.rootStatus,
            wallMs: ms(result.wallMs),
            treeDoneMs: ms(result.treeDoneMs),
            rootTurns: result.rootTurns,
            criticalPathMs: result.criticalPathMs,
            rssPeakMb: Math.round(result.rssPeakMb),
            serverRssPeakMb: Math.round(result.serverRssPeakMb),
            historyBytes: result.historyBytes,
            maxHistoryBytes: result.maxHistoryBytes,
            historyEvents: result.historyEvents,
            maxHistoryEvents: result.maxHistoryEvents,
            scheduleToStartMsP50: Object.fromEntries(
              taskKinds.map((kind) => [kind, ms(medianOf(result.times.wait[kind]))]),
            ),
            startToCloseMsP50: Object.fromEntries(
              taskKinds.map((kind) => [kind, ms(medianOf(result.times.run[kind]))]),
            ),
            ...(result.bareSdk
              ? {
                  bareSdk: {
                    wallMs: ms(result.bareSdk.wallMs),
                    wallOverCriticalPath: Number((result.bareSdk.wallMs / result.criticalPathMs).toFixed(2)),
                    rssPeakMb: Math.round(result.bareSdk.rssPeakMb),
                  },
                }
              : {}),
          },
        ]),
      ),
    ),
  );
  if (results.some((result) => result.completed !== result.agents)) process.exitCode = 1;
} catch (error) {
  console.error(`bench:scale did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await connection.close();
  await modelServer.close();
  await server.stop();
  rmSync(directory, { recursive: true, force: true });
}
// Everything is closed, yet something of the SDK's native side keeps the process alive (no JS handle
// is left: process._getActiveHandles() is empty): leave once the output is flushed.
process.stdout.write('', () => process.exit());
