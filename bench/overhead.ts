// npm run bench:overhead — what durability costs one agent: the same scripted conversation run by the durable
// agent (dev server, worker, model activity) and by a plain in-process loop that sends the same requests to the
// same model server and calls the same tool functions, without Temporal; and, in the same minute, by a bare
// Temporal workflow running those same steps with nothing of the runtime (what the SDK and the server cost).
import Anthropic from '@anthropic-ai/sdk';
import { firstRequestOf, startBareSdk } from './helpers/bare-sdk';
import { workflowStackFramesModule } from '../src/worker/plugin';
import { createBenchEnv } from './helpers/bench-env';
import { requestsByAgent } from './helpers/model-log';
import { readTurns, runtimeExtraPromisesPerCall, writeReadFiles } from './helpers/read-turns';
import { modelTurn, openConversation, toolTurn, type FirstRequest } from './helpers/served-conversation';
import { addTaskTimes, emptyTaskTimes, medianOf, type TaskTimes } from './helpers/task-times';
import { ms, withTimeout } from './helpers/wait';
import { measureGrep } from './helpers/grep-times';
import { measureSandboxTimes } from './helpers/sandbox-times';

const toolTurns = Number(process.env.BENCH_TURNS ?? 20);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const latencies = [0, 200];
const model = 'claude-test-tiny';
const modelCalls = toolTurns + 1;

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: [...latencies, 'warmup'].map((latency) => ({
      match: { agentName: `overhead-${latency}` },
      turns: readTurns(toolTurns, latency === 'warmup' ? 0 : Number(latency)),
    })),
  },
});
const anthropic = new Anthropic({ apiKey: 'bench', baseURL: env.modelServer.url, maxRetries: 0 });
// The bare-SDK loops' worker: its own task queue and bundle (bench/floor/workflows.ts), on the same server;
// and one whose bundle records the runtime's stack frames (src/workflows/runtime/stack-frames.ts), for the loop with
// the runtime's promise count, so that each of its promises costs the SDK's stack capture what one of the runtime's does.
const bare = await startBareSdk(env, anthropic, 'overhead-bare-sdk');
const bareWithRuntimeFrames = await startBareSdk(env, anthropic, 'overhead-bare-sdk-frames', {}, [
  workflowStackFramesModule,
]);

interface DurableRun {
  agentId: string;
  wallMs: number;
  /** startAgent → the first model request reaching the model server (setup activities, first workflow tasks). */
  setupMs: number;
  /** The first request's system prompt, tools, first message and headers: what the in-process loop starts from. */
  first: FirstRequest;
  lastBody: string;
}

async function runDurable(name: string): Promise<DurableRun> {
  const started = performance.now();
  const startedAt = Date.now();
  const handle = await env.client.startAgent({
    prompt: 'overhead benchmark: read the notes every turn',
    name,
    cwd: env.workspace,
    model,
    maxTurns: modelCalls + 5,
    permissionMode: 'bypassPermissions',
  });
  const result = await withTimeout(handle.result(), 300_000, `${name} to finish`);
  const wallMs = performance.now() - started;
  if (result.status !== 'completed' || result.turns !== modelCalls)
    throw new Error(`${name} ended ${result.status} after ${result.turns} turns (expected ${modelCalls})`);
  const requests = requestsByAgent(env.modelServer).get(handle.agentId) ?? [];
  if (requests.length !== modelCalls)
    throw new Error(`${name} made ${requests.length} model requests, expected ${modelCalls}`);
  return {
    agentId: handle.agentId,
    wallMs,
    setupMs: requests[0]!.receivedAt - startedAt,
    first: firstRequestOf(env.modelServer, handle.agentId),
    lastBody: requests[requests.length - 1]!.rawBody,
  };
}

/** Whether the model server's last request from this point on is byte-identical to the durable agent's last. */
function sameLastRequestSince(sentBefore: number, durable: DurableRun): boolean {
  const sent = env.modelServer
    .requests()
    .slice(sentBefore)
    .filter((request) => request.path === '/v1/messages');
  return sent[sent.length - 1]?.rawBody === durable.lastBody;
}

/** The same conversation without Temporal: a model call, then its tool calls side by side with the activities' own functions, repeated. */
async function runInProcess(
  durable: DurableRun,
): Promise<{ wallMs: number; modelMs: number; toolsMs: number; modelCalls: number; sameLastRequest: boolean }> {
  const conversation = openConversation(anthropic, durable.agentId, env.workspace, durable.first);
  const sentBefore = env.modelServer.requests().length;
  const started = performance.now();
  while ((await modelTurn(conversation)) > 0) await toolTurn(conversation);
  const wallMs = performance.now() - started;
  return {
    wallMs,
    modelMs: conversation.modelMs,
    toolsMs: conversation.toolsMs,
    modelCalls: conversation.calls,
    sameLastRequest: sameLastRequestSince(sentBefore, durable),
  };
}

/**
 * The same conversation as bare Temporal workflows: each model call an activity, each turn's tool calls a
 * local activity, on this bench's server and a worker of its own — the SDK's and the server's cost for this
 * conversation, measured in the same minute as the agent's. `floorServedLoop` keeps the conversation in the
 * bench's memory; `floorDurableLoop` passes it through the workflow (answers, tool results and each request's
 * new messages in its history), as a durable agent must; once more with as many promises a call as the
 * runtime's workflow code makes beyond it (bench:promises), each a stack trace the SDK captures; and once more
 * with each answer's tool calls in the model call's activity, the turn's shape when its Reads start with the call.
 */
const bareLoops = [
  {
    name: 'bareSdk',
    label: 'bare SDK',
    workflowType: 'floorServedLoop',
    extraPromisesPerCall: 0,
    readsWithCall: false,
    worker: bare,
  },
  {
    name: 'bareSdkDurable',
    label: 'bare durable',
    workflowType: 'floorDurableLoop',
    extraPromisesPerCall: 0,
    readsWithCall: false,
    worker: bare,
  },
  {
    name: 'bareSdkDurablePromises',
    label: `bare dur. +${runtimeExtraPromisesPerCall}`,
    workflowType: 'floorDurableLoop',
    extraPromisesPerCall: runtimeExtraPromisesPerCall,
    readsWithCall: false,
    worker: bareWithRuntimeFrames,
  },
  {
    name: 'bareSdkDurableReadsWithCall',
    label: 'bare dur. reads',
    workflowType: 'floorDurableLoop',
    extraPromisesPerCall: 0,
    readsWithCall: true,
    worker: bare,
  },
] as const;
type BareLoop = (typeof bareLoops)[number];

async function runBareSdk(
  durable: DurableRun,
  loop: BareLoop,
  times?: TaskTimes,
): Promise<{ wallMs: number; sameLastRequest: boolean }> {
  const key = `${loop.name}-${durable.agentId}`;
  loop.worker.open(key, durable.agentId);
  const sentBefore = env.modelServer.requests().length;
  const started = performance.now();
  const calls = await withTimeout(
    env.temporalClient.workflow.execute(loop.workflowType, {
      taskQueue: loop.worker.taskQueue,
      workflowId: key,
      args: [key, loop.extraPromisesPerCall, loop.readsWithCall],
    }),
    300_000,
    `${key} to finish`,
  );
  const wallMs = performance.now() - started;
  loop.worker.forget(key);
  if (times) addTaskTimes((await env.temporalClient.workflow.getHandle(key).fetchHistory()).events ?? [], times);
  if (calls !== modelCalls)
    throw new Error(`the ${loop.label} loop made ${String(calls)} model calls, expected ${modelCalls}`);
  return { wallMs, sameLastRequest: sameLastRequestSince(sentBefore, durable) };
}

/** Adds the task times of one durable run's history. */
async function taskTimes(agentId: string, into: TaskTimes): Promise<void> {
  addTaskTimes((await env.temporalClient.workflow.getHandle(agentId).fetchHistory()).events ?? [], into);
}

const median = medianOf;

try {
  writeReadFiles(env.workspace);
  // Warm-up (bundle, JIT, connections, the server's caches): not measured.
  const warmup = await runDurable('overhead-warmup');
  await runInProcess(warmup);
  for (const loop of bareLoops) await runBareSdk(warmup, loop);

  interface BareRow {
    wallMs: number;
    times: TaskTimes;
  }
  const rows: {
    latency: number;
    durable: number;
    setup: number;
    inProcess: number;
    inProcessModel: number;
    inProcessTools: number;
    bare: Record<BareLoop['name'], BareRow>;
    identical: boolean;
    times: TaskTimes;
  }[] = [];
  for (const latency of latencies) {
    const durable: number[] = [];
    const setup: number[] = [];
    const inProcess: number[] = [];
    const inProcessModel: number[] = [];
    const inProcessTools: number[] = [];
    const bareWalls = bareLoops.map((): number[] => []);
    const bareTimes = bareLoops.map(() => emptyTaskTimes());
    let identical = true;
    const times = emptyTaskTimes();
    for (let run = 0; run < runs; run++) {
      const durableRun = await runDurable(`overhead-${latency}`);
      const loop = await runInProcess(durableRun);
      if (loop.modelCalls !== modelCalls)
        throw new Error(`the in-process loop made ${loop.modelCalls} model calls, expected ${modelCalls}`);
      identical &&= loop.sameLastRequest;
      for (const [index, bareLoop] of bareLoops.entries()) {
        const bareRun = await runBareSdk(durableRun, bareLoop, bareTimes[index]);
        bareWalls[index]!.push(bareRun.wallMs);
        identical &&= bareRun.sameLastRequest;
      }
      durable.push(durableRun.wallMs);
      setup.push(durableRun.setupMs);
      inProcess.push(loop.wallMs);
      inProcessModel.push(loop.modelMs);
      inProcessTools.push(loop.toolsMs);
      await taskTimes(durableRun.agentId, times);
    }
    rows.push({
      latency,
      durable: median(durable),
      setup: median(setup),
      inProcess: median(inProcess),
      inProcessModel: median(inProcessModel),
      inProcessTools: median(inProcessTools),
      bare: Object.fromEntries(
        bareLoops.map((bareLoop, index) => [
          bareLoop.name,
          { wallMs: median(bareWalls[index]!), times: bareTimes[index]! },
        ]),
      ) as Record<BareLoop['name'], BareRow>,
      identical,
      times,
    });
  }

  type Row = (typeof rows)[number];
  // A run's wall time against the in-process loop's: as a ratio, and per model call.
  const ratioOf = (row: Row, wallMs: number) => wallMs / row.inProcess;
  const perCallOf = (row: Row, wallMs: number) => (wallMs - row.inProcess) / modelCalls;
  const pad = (cells: (number | string)[], width: number) =>
    cells.map((value) => String(value).padStart(width)).join('');
  console.log(
    `overhead benchmark: ${toolTurns} turns of 2 tool calls (two Reads of small files) + a final answer = ${modelCalls} model calls; median of ${runs} runs (ms)`,
  );
  const columns = [
    'durable',
    'of it setup',
    'in-process',
    'of it model',
    'of it tools',
    'ratio',
    'per call',
    'same requests',
  ];
  console.log(`${'latency'.padStart(8)}${pad(columns, 14)}`);
  for (const row of rows) {
    const cells = [
      ms(row.durable),
      ms(row.setup),
      ms(row.inProcess),
      ms(row.inProcessModel),
      ms(row.inProcessTools),
      ratioOf(row, row.durable).toFixed(2),
      ms(perCallOf(row, row.durable)),
      row.identical ? 'yes' : 'NO',
    ];
    console.log(`${String(row.latency).padStart(8)}${pad(cells, 14)}`);
  }
  console.log(
    'durable: startAgent → result; of it setup: startAgent → its first model request; in-process: first request → final answer',
  );
  console.log(
    '(of it model: building, sending and reading the requests; of it tools: running the tool calls); per call = (durable − in-process) / model calls;',
  );
  console.log(
    "same requests: the loop's and the bare workflows' last request bodies are byte-identical to the durable agent's",
  );
  console.log('');
  console.log(
    'the same conversation as bare Temporal workflows (bench/floor/workflows.ts), in the same minutes: ratio and per call against the same in-process loop',
  );
  console.log(
    `${'latency'.padStart(8)}${'loop'.padStart(22)}${pad(['wall', 'ratio', 'per call', 'task run p50', 'call run p50'], 14)}`,
  );
  for (const row of rows) {
    const agentCells = [
      ms(row.durable),
      ratioOf(row, row.durable).toFixed(2),
      ms(perCallOf(row, row.durable)),
      ms(median(row.times.run.workflowTask)),
      ms(median(row.times.run.callModel)),
    ];
    console.log(`${String(row.latency).padStart(8)}${'the agent'.padStart(22)}${pad(agentCells, 14)}`);
    for (const bareLoop of bareLoops) {
      const { wallMs, times: loopTimes } = row.bare[bareLoop.name];
      // A bare loop's model call is its only activity type; its tool calls are a local activity.
      const cells = [
        ms(wallMs),
        ratioOf(row, wallMs).toFixed(2),
        ms(perCallOf(row, wallMs)),
        ms(median(loopTimes.run.workflowTask)),
        ms(median(loopTimes.run.otherActivities)),
      ];
      console.log(`${''.padStart(8)}${bareLoop.label.padStart(22)}${pad(cells, 14)}`);
    }
  }
  console.log(
    "bare SDK (floorServedLoop): each model call an activity, each turn's tool calls a local activity, the conversation in the bench's memory;",
  );
  console.log(
    "bare durable (floorDurableLoop): the conversation passing through the workflow — each answer the activity's result, each turn's tool",
  );
  console.log(
    "results the local activity's, each request's new messages its input: what a history that is the transcript costs, and no more;",
  );
  console.log(
    `bare dur. +${runtimeExtraPromisesPerCall}: the same with ${runtimeExtraPromisesPerCall} more promises a call, as many as the runtime's workflow code makes beyond it (bench:promises),`,
  );
  console.log(
    "each a stack trace the SDK captures and source-maps, of the runtime's 5 frames (its worker preloads src/workflows/runtime/stack-frames.ts):",
  );
  console.log(
    "what the runtime's promises alone cost. bare dur. reads: the durable bare loop with each answer's tool calls run in its model",
  );
  console.log(
    "call's activity, as the runtime runs a turn's leading Reads: no local activity. Task run: a workflow task's started → completed.",
  );
  console.log('');
  console.log(
    'durable runs, from their histories: median ms scheduled → started (waiting for a poller) and started → completed (on the worker)',
  );
  const kinds = ['workflowTask', 'callModel', 'tools'] as const;
  console.log(
    `${'latency'.padStart(13)}${pad(
      kinds.flatMap((kind) => [`${kind} wait`, `${kind} run`]),
      18,
    )}`,
  );
  for (const row of rows) {
    const cells = kinds.flatMap((kind): (number | string)[] =>
      kind === 'tools' && row.times.wait.tools.length === 0 && row.times.localTools + row.times.preReadTools > 0
        ? ['-', row.times.preReadTools > 0 ? 'with model call' : 'in workflow task']
        : [ms(median(row.times.wait[kind])), ms(median(row.times.run[kind]))],
    );
    console.log(`${String(row.latency).padStart(13)}${pad(cells, 18)}`);
  }
  console.log(
    "(a turn's leading Reads come back with its model call when no rule or hook speaks about Read and no workspace worker holds the files:",
  );
  console.log(
    ' their time is in "callModel run"; other Reads run as local activities inside the workflow task, their time in "workflowTask run")',
  );
  const byLatency = (pick: (row: Row) => number) =>
    Object.fromEntries(rows.map((row) => [String(row.latency), pick(row)]));
  // A bare loop's figures by latency, from its median wall time and its histories' task times.
  const bareFigures = (name: BareLoop['name']) => ({
    ratio: byLatency((row) => Number(ratioOf(row, row.bare[name].wallMs).toFixed(2))),
    perCallOverheadMs: byLatency((row) => ms(perCallOf(row, row.bare[name].wallMs))),
    ms: byLatency((row) => ms(row.bare[name].wallMs)),
    workflowTaskStartToCloseMsP50: byLatency((row) => ms(median(row.bare[name].times.run.workflowTask))),
    callStartToCloseMsP50: byLatency((row) => ms(median(row.bare[name].times.run.otherActivities))),
  });
  // Grep (the tool, rg under it) against plain rg with the same arguments, on this repository (bench/helpers/grep-times.ts).
  const grepTimes = await measureGrep(process.cwd());
  console.log('');
  console.log(
    grepTimes
      ? `Grep on this repository, median ms: Grep ${grepTimes.grepMsP50}, plain rg with the same arguments ${grepTimes.plainRgMsP50}`
      : 'Grep: rg is not installed',
  );
  // What the OS sandbox adds to a Bash call: the same commands with it on and off, alternating (bench/helpers/sandbox-times.ts).
  const sandboxTimes = await measureSandboxTimes(Number(process.env.BENCH_SANDBOX_CALLS ?? 20));
  if (!sandboxTimes.available) console.log(`Bash sandbox: not measured (${sandboxTimes.problem})`);
  for (const row of sandboxTimes.rows)
    console.log(
      `Bash \`${row.command}\`, median ms of ${sandboxTimes.calls}: sandboxed ${row.sandboxedMsP50}, unconfined ${row.unconfinedMsP50}, added ${row.addedMsP50}`,
    );
  const sandboxAdded = sandboxTimes.rows.map((row) => row.addedMsP50).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      ...(grepTimes ? { grepMsP50: grepTimes.grepMsP50, plainRgMsP50: grepTimes.plainRgMsP50 } : {}),
      ...(sandboxTimes.available
        ? { bashSandboxAddedMsP50: sandboxAdded[Math.floor(sandboxAdded.length / 2)], bashSandbox: sandboxTimes.rows }
        : {}),
      ratio: byLatency((row) => Number(ratioOf(row, row.durable).toFixed(2))),
      perCallOverheadMs: byLatency((row) => ms(perCallOf(row, row.durable))),
      bareSdk: bareFigures('bareSdk'),
      bareSdkDurable: bareFigures('bareSdkDurable'),
      bareSdkDurablePromises: {
        ...bareFigures('bareSdkDurablePromises'),
        extraPromisesPerCall: runtimeExtraPromisesPerCall,
      },
      bareSdkDurableReadsWithCall: bareFigures('bareSdkDurableReadsWithCall'),
      durableMs: byLatency((row) => ms(row.durable)),
      durableSetupMs: byLatency((row) => ms(row.setup)),
      inProcessMs: byLatency((row) => ms(row.inProcess)),
      inProcessModelMs: byLatency((row) => ms(row.inProcessModel)),
      inProcessToolsMs: byLatency((row) => ms(row.inProcessTools)),
      workflowTaskScheduleToStartMsP50: byLatency((row) => ms(median(row.times.wait.workflowTask))),
      callModelScheduleToStartMsP50: byLatency((row) => ms(median(row.times.wait.callModel))),
      toolScheduleToStartMsP50: byLatency((row) => ms(median(row.times.wait.tools))),
      workflowTaskStartToCloseMsP50: byLatency((row) => ms(median(row.times.run.workflowTask))),
      callModelStartToCloseMsP50: byLatency((row) => ms(median(row.times.run.callModel))),
      toolStartToCloseMsP50: byLatency((row) => ms(median(row.times.run.tools))),
      localToolCalls: byLatency((row) => row.times.localTools),
      preReadToolCalls: byLatency((row) => row.times.preReadTools),
      sameRequests: rows.every((row) => row.identical),
      modelCalls,
      runs,
    }),
  );
} catch (error) {
  console.error(`bench:overhead did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await bare.close();
  await bareWithRuntimeFrames.close();
  await env.close();
}
