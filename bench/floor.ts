// npm run bench:floor — what the Temporal SDK and the dev server alone cost on this machine for the shapes
// the [perf] goals measure: the same loops, fan-outs, trees and stops as bench:overhead, bench:spawn,
// bench:scale and bench:cancel, written as bare workflows (bench/floor/workflows.ts) with stand-in
// activities and nothing of the runtime. Where a goal is missed, this is how close a runtime on this SDK
// and server can get.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../src/dev/dev-server';
import * as activities from './floor/activities';
import { percentile } from './helpers/bench-env';
import { addTaskTimes, emptyTaskTimes, medianOf } from './helpers/task-times';
import { ms, waitFor, withTimeout } from './helpers/wait';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const taskQueue = 'floor';
/** bench:overhead's conversation: 20 turns of two Reads, then the answer. */
const loopTurns = 20;
const latencies = [0, 200];
/** bench:spawn's fan-out: 50 background children in one message (the runtime starts 10 at a time). */
const fanOutChildren = 50;
/** bench:scale's 50 case: 3 turns a leaf, model latency 100 ms; critical path root + 3 + root = 5 calls. */
const scale = { children: 50, turns: 3, latencyMs: 100 };
/** bench:cancel's 50 case: root → 7 middles → 6 leaves each. */
const treeFanOut = [7, 6];
const treeSize = 1 + treeFanOut[0]! * (1 + treeFanOut[1]!);
/** bench:cancel's busy leaves: a model call of 500 ms (BENCH_LEAF_DELAY_MS), then a tool, over and over. */
const leafTurnMs = 500;

const median = (values: number[]) => percentile(values, 50);

Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { logging: { forward: {}, filter: { core: 'ERROR', other: 'ERROR' } } },
});
const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-floor-')));
const files = ['notes.txt', 'todo.txt'].map((name) => path.join(directory, name));
for (const file of files) writeFileSync(file, `${path.basename(file)}: ${'a line of notes\n'.repeat(20)}`);
const server = await startDevServer({ port: 0, headless: true });
const nativeConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection, namespace: 'default' });
const worker = await Worker.create({
  connection: nativeConnection,
  namespace: 'default',
  taskQueue,
  activities,
  workflowBundle: await bundleWorkflowCode({
    workflowsPath: path.join(import.meta.dirname, 'floor', 'workflows.ts'),
    logger: new DefaultLogger('WARN'),
  }),
});
const running = worker.run();
let sequence = 0;
const nextId = (kind: string) => `floor-${kind}-${++sequence}`;

/** The same conversation without Temporal: the same activity functions, called in a loop. */
async function inProcessLoop(latencyMs: number): Promise<void> {
  for (let turn = 0; turn < loopTurns; turn++) {
    await activities.call(`in-process/${turn}`, latencyMs);
    await activities.read(files);
  }
  await activities.call(`in-process/${loopTurns}`, latencyMs);
}

async function loopCase(latencyMs: number) {
  const durable: number[] = [];
  const inProcess: number[] = [];
  // Where the durable time goes, from the histories (as bench:overhead reports it for the agent).
  const tasks = emptyTaskTimes();
  await client.workflow.execute('floorLoop', {
    taskQueue,
    workflowId: nextId('warmup'),
    args: [loopTurns, latencyMs, files],
  });
  for (let run = 0; run < runs; run++) {
    let started = Date.now();
    const workflowId = nextId('loop');
    await client.workflow.execute('floorLoop', { taskQueue, workflowId, args: [loopTurns, latencyMs, files] });
    durable.push(Date.now() - started);
    addTaskTimes((await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [], tasks);
    started = Date.now();
    await inProcessLoop(latencyMs);
    inProcess.push(Date.now() - started);
  }
  const calls = loopTurns + 1;
  return {
    durableMs: median(durable),
    inProcessMs: median(inProcess),
    ratio: median(durable) / median(inProcess),
    perCallOverheadMs: (median(durable) - median(inProcess)) / calls,
    workflowTaskRunMs: medianOf(tasks.run.workflowTask),
    callRunMs: medianOf(tasks.run.otherActivities),
  };
}

async function fanOutCase(batch: number) {
  const last: number[] = [];
  const first: number[] = [];
  const p50: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const workflowId = nextId(`fan${batch}`);
    await client.workflow.execute('floorFanParent', { taskQueue, workflowId, args: [fanOutChildren, batch] });
    const answered = activities.callTimes.get(workflowId)!.endedAt;
    const children = Array.from(
      { length: fanOutChildren },
      (_, index) => activities.callTimes.get(`${workflowId}.${index + 1}`)!.startedAt - answered,
    );
    if (run === 0) continue; // warm-up
    first.push(Math.min(...children));
    p50.push(median(children));
    last.push(Math.max(...children));
  }
  return { firstChildMs: median(first), childP50Ms: median(p50), lastChildMs: median(last) };
}

async function scaleCase() {
  const wall: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const started = Date.now();
    await client.workflow.execute('floorScaleParent', {
      taskQueue,
      workflowId: nextId('scale'),
      args: [scale.children, scale.turns, scale.latencyMs, files],
    });
    if (run > 0) wall.push(Date.now() - started);
  }
  const criticalPathMs = (1 + scale.turns + 1) * scale.latencyMs;
  return { wallMs: median(wall), criticalPathMs, ratio: median(wall) / criticalPathMs };
}

/** Every workflow id of a tree whose root is `rootId` (children are `<parent>.<n>`). */
function treeIds(rootId: string): string[] {
  const ids = [rootId];
  for (let middle = 1; middle <= treeFanOut[0]!; middle++) {
    ids.push(`${rootId}.${middle}`);
    for (let leaf = 1; leaf <= treeFanOut[1]!; leaf++) ids.push(`${rootId}.${middle}.${leaf}`);
  }
  return ids;
}

/** `busyMs` > 0: the leaves run a turn every `busyMs` (bench:cancel's leaves: a Glob every 500 ms); 0: everyone waits. */
async function stopCase(busyMs: number) {
  const stops: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const rootId = nextId('tree');
    const ids = treeIds(rootId);
    const root: WorkflowHandle = await client.workflow.start('floorTreeNode', {
      taskQueue,
      workflowId: rootId,
      args: [treeFanOut, busyMs, files],
    });
    await waitFor(
      () => ids.every((id) => activities.callTimes.has(id)),
      60_000,
      `the ${treeSize} workflows of ${rootId} to be running`,
      20,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stopAt = Date.now();
    await root.cancel();
    await withTimeout(
      root.result().catch(() => undefined),
      60_000,
      `${rootId} to close`,
    );
    let closeTimes: number[] = [];
    await waitFor(
      async () => {
        const described = await Promise.all(ids.map((id) => client.workflow.getHandle(id).describe()));
        closeTimes = described.map((workflow) => workflow.closeTime?.getTime() ?? Number.NaN);
        return closeTimes.every((time) => !Number.isNaN(time));
      },
      60_000,
      `every workflow of ${rootId} to be closed`,
    );
    if (run > 0) stops.push(Math.max(...closeTimes) - stopAt);
  }
  return { stopToAllClosedMs: median(stops), runs: stops };
}

try {
  const loop = Object.fromEntries(
    await sequential(latencies, async (latency) => [latency, await loopCase(latency)] as const),
  );
  const fanOut = { batch10: await fanOutCase(10), batch50: await fanOutCase(fanOutChildren) };
  const scaled = await scaleCase();
  const stop = { idle: await stopCase(0), busy: await stopCase(leafTurnMs) };

  console.log(
    `floor: the Temporal SDK and dev server alone (bare workflows, stand-in activities), median of ${runs} runs (ms)`,
  );
  console.log(
    '\nconversation loop (bench:overhead): 20 turns of two Reads (one local activity) + the answer = 21 activity calls',
  );
  console.log(
    `${'latency'.padStart(8)}${['durable', 'in-process', 'ratio', 'per call', 'wf task run', 'call run'].map((label) => label.padStart(12)).join('')}`,
  );
  for (const latency of latencies) {
    const row = loop[latency]!;
    const cells = [
      ms(row.durableMs),
      ms(row.inProcessMs),
      row.ratio.toFixed(2),
      ms(row.perCallOverheadMs),
      ms(row.workflowTaskRunMs),
      ms(row.callRunMs),
    ];
    console.log(`${String(latency).padStart(8)}${cells.map((value) => String(value).padStart(12)).join('')}`);
  }
  console.log(
    '(wf task run, call run: median started → completed from the histories, as bench:overhead prints them for the agent)',
  );
  console.log(
    `\nfan-out (bench:spawn): ${fanOutChildren} children, each a local activity then an activity; from the parent's activity end to each child's activity start`,
  );
  console.log(`${'batch'.padStart(8)}${['first', 'p50', 'last'].map((label) => label.padStart(12)).join('')}`);
  for (const [label, row] of [
    ['10', fanOut.batch10],
    [String(fanOutChildren), fanOut.batch50],
  ] as const) {
    console.log(
      `${label.padStart(8)}${[row.firstChildMs, row.childP50Ms, row.lastChildMs].map((value) => String(ms(value)).padStart(12)).join('')}`,
    );
  }
  console.log(
    `\nscale (bench:scale): ${scale.children} children × ${scale.turns} calls of ${scale.latencyMs} ms: wall ${ms(scaled.wallMs)}, critical path ${scaled.criticalPathMs}, ratio ${scaled.ratio.toFixed(2)}`,
  );
  console.log(`stop (bench:cancel): a tree of ${treeSize} workflows, root cancelled → all closed`);
  console.log(`  all waiting: ${ms(stop.idle.stopToAllClosedMs)} (runs ${stop.idle.runs.join(', ')})`);
  console.log(
    `  leaves busy (a ${leafTurnMs} ms call and a Read in a loop): ${ms(stop.busy.stopToAllClosedMs)} (runs ${stop.busy.runs.join(', ')})`,
  );
  console.log(
    JSON.stringify({
      ratio: Object.fromEntries(latencies.map((latency) => [latency, Number(loop[latency]!.ratio.toFixed(2))])),
      perCallOverheadMs: Object.fromEntries(
        latencies.map((latency) => [latency, ms(loop[latency]!.perCallOverheadMs)]),
      ),
      workflowTaskRunMsP50: Object.fromEntries(
        latencies.map((latency) => [latency, ms(loop[latency]!.workflowTaskRunMs)]),
      ),
      callRunMsP50: Object.fromEntries(latencies.map((latency) => [latency, ms(loop[latency]!.callRunMs)])),
      fanOutLastChildMs: { 10: fanOut.batch10.lastChildMs, [fanOutChildren]: fanOut.batch50.lastChildMs },
      fanOutFirstChildMs: { 10: fanOut.batch10.firstChildMs, [fanOutChildren]: fanOut.batch50.firstChildMs },
      scale: { wallMs: scaled.wallMs, criticalPathMs: scaled.criticalPathMs, ratio: Number(scaled.ratio.toFixed(2)) },
      stopToAllClosedMs: { idle: stop.idle.stopToAllClosedMs, busy: stop.busy.stopToAllClosedMs },
      runs,
    }),
  );
} finally {
  worker.shutdown();
  await running;
  await nativeConnection.close();
  await connection.close();
  await server.stop();
  rmSync(directory, { recursive: true, force: true });
}

/** Runs `each` over `items` one after the other (the cases must not overlap: they time the same machine). */
async function sequential<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await each(item));
  return results;
}
