// npm run bench:overhead — what durability costs one agent: the same scripted conversation run by the durable
// agent (dev server, worker, model activity) and by a plain in-process loop that sends the same requests to the
// same model server and calls the same tool functions, without Temporal; and, in the same minute, by a bare
// Temporal workflow running those same steps with nothing of the runtime (what the SDK and the server cost).
import Anthropic from '@anthropic-ai/sdk';
import { firstRequestOf, startBareSdk } from './helpers/bare-sdk';
import { createBenchEnv } from './helpers/bench-env';
import { requestsByAgent } from './helpers/model-log';
import { readTurns, writeReadFiles } from './helpers/read-turns';
import { modelTurn, openConversation, toolTurn, type FirstRequest } from './helpers/served-conversation';
import { addTaskTimes, emptyTaskTimes, medianOf, type TaskTimes } from './helpers/task-times';
import { ms, withTimeout } from './helpers/wait';

const toolTurns = Number(process.env.BENCH_TURNS ?? 20);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const latencies = [0, 200];
const model = 'claude-test-tiny';
const modelCalls = toolTurns + 1;

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: { agents: [...latencies, 'warmup'].map((latency) => ({ match: { agentName: `overhead-${latency}` }, turns: readTurns(toolTurns, latency === 'warmup' ? 0 : Number(latency)) })) },
});
const anthropic = new Anthropic({ apiKey: 'bench', baseURL: env.modelServer.url, maxRetries: 0 });
// The bare-SDK loop's worker: its own task queue and bundle (bench/floor/workflows.ts), on the same server.
const bare = await startBareSdk(env, anthropic, 'overhead-bare-sdk');

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
  const handle = await env.client.startAgent({ prompt: 'overhead benchmark: read the notes every turn', name, cwd: env.workspace, model, maxTurns: modelCalls + 5, permissionMode: 'bypassPermissions' });
  const result = await withTimeout(handle.result(), 300_000, `${name} to finish`);
  const wallMs = performance.now() - started;
  if (result.status !== 'completed' || result.turns !== modelCalls) throw new Error(`${name} ended ${result.status} after ${result.turns} turns (expected ${modelCalls})`);
  const requests = requestsByAgent(env.modelServer).get(handle.agentId) ?? [];
  if (requests.length !== modelCalls) throw new Error(`${name} made ${requests.length} model requests, expected ${modelCalls}`);
  return { agentId: handle.agentId, wallMs, setupMs: requests[0]!.receivedAt - startedAt, first: firstRequestOf(env.modelServer, handle.agentId), lastBody: requests[requests.length - 1]!.rawBody };
}

/** Whether the model server's last request from this point on is byte-identical to the durable agent's last. */
function sameLastRequestSince(sentBefore: number, durable: DurableRun): boolean {
  const sent = env.modelServer.requests().slice(sentBefore).filter((request) => request.path === '/v1/messages');
  return sent[sent.length - 1]?.rawBody === durable.lastBody;
}

/** The same conversation without Temporal: a model call, then its tool calls side by side with the activities' own functions, repeated. */
async function runInProcess(durable: DurableRun): Promise<{ wallMs: number; modelMs: number; toolsMs: number; modelCalls: number; sameLastRequest: boolean }> {
  const conversation = openConversation(anthropic, durable.agentId, env.workspace, durable.first);
  const sentBefore = env.modelServer.requests().length;
  const started = performance.now();
  while ((await modelTurn(conversation)) > 0) await toolTurn(conversation);
  const wallMs = performance.now() - started;
  return { wallMs, modelMs: conversation.modelMs, toolsMs: conversation.toolsMs, modelCalls: conversation.calls, sameLastRequest: sameLastRequestSince(sentBefore, durable) };
}

/**
 * The same conversation as a bare Temporal workflow: each model call an activity, each turn's tool calls a
 * local activity, on this bench's server and a worker of its own — the SDK's and the server's cost for
 * this conversation, measured in the same minute as the agent's. `floorServedLoop` keeps the conversation
 * in the bench's memory; `floorDurableLoop` passes it through the workflow (answers, tool results and each
 * request's new messages in its history), as a durable agent must.
 */
async function runBareSdk(durable: DurableRun, workflowType: 'floorServedLoop' | 'floorDurableLoop', times?: TaskTimes): Promise<{ wallMs: number; modelCalls: number; sameLastRequest: boolean }> {
  const key = `${workflowType === 'floorDurableLoop' ? 'bare-durable' : 'bare'}-${durable.agentId}`;
  bare.open(key, durable.agentId);
  const sentBefore = env.modelServer.requests().length;
  const started = performance.now();
  const calls = await withTimeout(env.temporalClient.workflow.execute(workflowType, { taskQueue: bare.taskQueue, workflowId: key, args: [key] }), 300_000, `${key} to finish`);
  const wallMs = performance.now() - started;
  bare.forget(key);
  if (times) addTaskTimes((await env.temporalClient.workflow.getHandle(key).fetchHistory()).events ?? [], times);
  return { wallMs, modelCalls: calls as number, sameLastRequest: sameLastRequestSince(sentBefore, durable) };
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
  await runBareSdk(warmup, 'floorServedLoop');
  await runBareSdk(warmup, 'floorDurableLoop');

  const rows: { latency: number; durable: number; setup: number; inProcess: number; inProcessModel: number; inProcessTools: number; bare: number; durableBare: number; identical: boolean; times: TaskTimes; bareTimes: TaskTimes; durableBareTimes: TaskTimes }[] = [];
  for (const latency of latencies) {
    const durable: number[] = [];
    const setup: number[] = [];
    const inProcess: number[] = [];
    const inProcessModel: number[] = [];
    const inProcessTools: number[] = [];
    const bareWall: number[] = [];
    const durableBareWall: number[] = [];
    let identical = true;
    const times = emptyTaskTimes();
    const bareTimes = emptyTaskTimes();
    const durableBareTimes = emptyTaskTimes();
    for (let run = 0; run < runs; run++) {
      const durableRun = await runDurable(`overhead-${latency}`);
      const loop = await runInProcess(durableRun);
      if (loop.modelCalls !== modelCalls) throw new Error(`the in-process loop made ${loop.modelCalls} model calls, expected ${modelCalls}`);
      const bareRun = await runBareSdk(durableRun, 'floorServedLoop', bareTimes);
      if (bareRun.modelCalls !== modelCalls) throw new Error(`the bare-SDK loop made ${bareRun.modelCalls} model calls, expected ${modelCalls}`);
      bareWall.push(bareRun.wallMs);
      const durableBareRun = await runBareSdk(durableRun, 'floorDurableLoop', durableBareTimes);
      if (durableBareRun.modelCalls !== modelCalls) throw new Error(`the durable bare-SDK loop made ${durableBareRun.modelCalls} model calls, expected ${modelCalls}`);
      durableBareWall.push(durableBareRun.wallMs);
      durable.push(durableRun.wallMs);
      setup.push(durableRun.setupMs);
      inProcess.push(loop.wallMs);
      inProcessModel.push(loop.modelMs);
      inProcessTools.push(loop.toolsMs);
      identical &&= loop.sameLastRequest && bareRun.sameLastRequest && durableBareRun.sameLastRequest;
      await taskTimes(durableRun.agentId, times);
    }
    const durableMs = median(durable);
    const inProcessMs = median(inProcess);
    const bareMs = median(bareWall);
    const durableBareMs = median(durableBareWall);
    rows.push({
      latency,
      durable: durableMs,
      setup: median(setup),
      inProcess: inProcessMs,
      inProcessModel: median(inProcessModel),
      inProcessTools: median(inProcessTools),
      bare: bareMs,
      durableBare: durableBareMs,
      identical,
      times,
      bareTimes,
      durableBareTimes,
    });
  }

  type Row = (typeof rows)[number];
  // A run's wall time against the in-process loop's: as a ratio, and per model call.
  const ratioOf = (row: Row, wallMs: number) => wallMs / row.inProcess;
  const perCallOf = (row: Row, wallMs: number) => (wallMs - row.inProcess) / modelCalls;
  console.log(`overhead benchmark: ${toolTurns} turns of 2 tool calls (two Reads of small files) + a final answer = ${modelCalls} model calls; median of ${runs} runs (ms)`);
  const columns = ['durable', 'of it setup', 'in-process', 'of it model', 'of it tools', 'ratio', 'per call', 'bare SDK', 'its ratio', 'its per call', 'bare durable', 'its ratio', 'its per call', 'same requests'];
  console.log(`${'latency'.padStart(8)}${columns.map((label) => label.padStart(14)).join('')}`);
  for (const row of rows) {
    const figures = (wallMs: number) => [ratioOf(row, wallMs).toFixed(2), ms(perCallOf(row, wallMs))];
    const cells = [ms(row.durable), ms(row.setup), ms(row.inProcess), ms(row.inProcessModel), ms(row.inProcessTools), ...figures(row.durable), ms(row.bare), ...figures(row.bare), ms(row.durableBare), ...figures(row.durableBare), row.identical ? 'yes' : 'NO'];
    console.log(`${String(row.latency).padStart(8)}${cells.map((value) => String(value).padStart(14)).join('')}`);
  }
  console.log('durable: startAgent → result; of it setup: startAgent → its first model request; in-process: first request → final answer');
  console.log('(of it model: building, sending and reading the requests; of it tools: running the tool calls); per call = (durable − in-process) / model calls;');
  console.log('bare SDK: the same conversation as a bare Temporal workflow (bench/floor/workflows.ts, floorServedLoop): each model call an activity,');
  console.log("each turn's tool calls a local activity, the conversation in memory — what the SDK and this server cost it, in the same minute;");
  console.log('bare durable: the same with the conversation passing through the workflow (floorDurableLoop): each answer the activity\'s result, each');
  console.log("turn's tool results the local activity's, each request's new messages its input — what a history that is the transcript costs, and no more");
  console.log("same requests: the loop's and the bare workflows' last request bodies are byte-identical to the durable agent's");
  console.log('');
  console.log('durable runs, from their histories: median ms scheduled → started (waiting for a poller) and started → completed (on the worker)');
  const kinds = ['workflowTask', 'callModel', 'tools'] as const;
  console.log(`${'latency'.padStart(13)}${kinds.flatMap((kind) => [`${kind} wait`, `${kind} run`]).map((label) => label.padStart(18)).join('')}`);
  for (const row of rows) {
    const cells = kinds.flatMap((kind): (number | string)[] =>
      kind === 'tools' && row.times.wait.tools.length === 0 && row.times.localTools > 0 ? ['-', 'in workflow task'] : [ms(median(row.times.wait[kind])), ms(median(row.times.run[kind]))],
    );
    console.log(`${String(row.latency).padStart(13)}${cells.map((value) => String(value).padStart(18)).join('')}`);
  }
  for (const [label, pick] of [['bare', (row: Row) => row.bareTimes], ['bare dur.', (row: Row) => row.durableBareTimes]] as const) {
    for (const row of rows) {
      // A bare loop's model call is its only activity type; its tool calls are a local activity.
      const { wait, run } = pick(row);
      const cells = [ms(median(wait.workflowTask)), ms(median(run.workflowTask)), ms(median(wait.otherActivities)), ms(median(run.otherActivities)), '-', 'in workflow task'];
      console.log(`${`${row.latency} ${label}`.padStart(13)}${cells.map((value) => String(value).padStart(18)).join('')}`);
    }
  }
  console.log('(Reads run as local activities inside the workflow task when no workspace worker holds the files: their time is in "workflowTask run")');
  console.log('("bare", "bare dur.": the bare-SDK loops of the same conversation, their model call in the callModel columns)');
  const byLatency = (pick: (row: Row) => number) => Object.fromEntries(rows.map((row) => [String(row.latency), pick(row)]));
  // A bare loop's figures by latency, from its median wall time and its histories' task times.
  const bareFigures = (pick: (row: Row) => [wallMs: number, times: TaskTimes]) => ({
    ratio: byLatency((row) => Number(ratioOf(row, pick(row)[0]).toFixed(2))),
    perCallOverheadMs: byLatency((row) => ms(perCallOf(row, pick(row)[0]))),
    ms: byLatency((row) => ms(pick(row)[0])),
    workflowTaskStartToCloseMsP50: byLatency((row) => ms(median(pick(row)[1].run.workflowTask))),
    callStartToCloseMsP50: byLatency((row) => ms(median(pick(row)[1].run.otherActivities))),
  });
  console.log(
    JSON.stringify({
      ratio: byLatency((row) => Number(ratioOf(row, row.durable).toFixed(2))),
      perCallOverheadMs: byLatency((row) => ms(perCallOf(row, row.durable))),
      bareSdk: bareFigures((row) => [row.bare, row.bareTimes]),
      bareSdkDurable: bareFigures((row) => [row.durableBare, row.durableBareTimes]),
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
  await env.close();
}
