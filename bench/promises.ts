// npm run bench:promises — how many promises workflow code makes for one turn of a conversation and for
// one child of a fan-out, the runtime's against the bare SDK's (bench/floor/workflows.ts) for the same
// requests. The SDK captures and source-maps a stack trace for every promise workflow code creates (its
// promise hook, for the Temporal UI's "Stack Trace" tab; docs/operations.md, "Worker tuning"), so this
// count is the workflow thread's largest cost that grows with the runtime's code — and, unlike a time, it
// does not move with the machine's minute. Both workers run in `debugMode` (workflows on this thread), so
// a promise hook of this bench's own sees them; each promise is counted once, by the innermost frame of
// the runtime's (or the bare workflow's) code that made it.
import v8 from 'node:v8';
import Anthropic from '@anthropic-ai/sdk';
import type { Turn } from '../src/model-server/server';
import { startBareSdk } from './helpers/bare-sdk';
import { createBenchEnv } from './helpers/bench-env';
import { readTurns, runtimeExtraPromisesPerCall, writeReadFiles } from './helpers/read-turns';
import { withTimeout } from './helpers/wait';

const turns = Number(process.env.BENCH_TURNS ?? 20);
const children = Number(process.env.BENCH_CHILDREN ?? 50);
const model = 'claude-test-tiny';
const limits = { maxChildrenPerAgent: children + 10, maxAgentsPerTree: children + 10 };
const conversation = readTurns(turns);
const agentCall = (index: number) => ({
  name: 'Agent',
  input: {
    description: `child ${index}`,
    prompt: `promises child ${index}`,
    subagent_type: 'general-purpose',
    run_in_background: true,
  },
});
const fanOut: Turn[] = [
  { toolUses: Array.from({ length: children }, (_, index) => agentCall(index + 1)) },
  ...Array.from({ length: children + 2 }, () => ({ text: 'noted' })),
];

const debugMode = { debugMode: true };
const env = await createBenchEnv(
  {
    kind: 'scripted',
    scenario: {
      agents: [
        ...['warmup', 'measured'].map((run) => ({ match: { agentName: `promises-loop-${run}` }, turns: conversation })),
        ...['warmup', 'measured'].map((run) => ({ match: { agentName: `promises-fan-${run}` }, turns: fanOut })),
        { match: { userIncludes: 'promises child' }, turns: [{ text: 'child done' }] },
      ],
    },
  },
  { workerOptions: debugMode },
);
const bare = await startBareSdk(
  env,
  new Anthropic({ apiKey: 'bench', baseURL: env.modelServer.url, maxRetries: 0 }),
  'promises-bare-sdk',
  debugMode,
);

/** Promises made in workflow contexts while `counting` is set, by the innermost frame of our own code. */
const counted = new Map<string, number>();
let counting = false;
let total = 0;
const ownFrame = /(?:src\/(?:workflows|shared)|bench\/floor)\/[^:()\s]+:\d+/;
v8.promiseHooks.onInit((promise) => {
  // This thread's own promises (the worker, the model server, this bench) are instances of its Promise;
  // a workflow's are its context's.
  if (!counting || promise instanceof Promise) return;
  total += 1;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = limit;
  const frames = (holder.stack ?? '').split('\n').slice(1);
  let source = '(the SDK)';
  for (const frame of frames) {
    const match = ownFrame.exec(frame);
    if (!match) continue;
    const name = /at (?:async )?([^\s(]+) \(/.exec(frame)?.[1];
    source = `${match[0]}${name ? ` ${name}` : ''}`;
    break;
  }
  counted.set(source, (counted.get(source) ?? 0) + 1);
});

interface Count {
  total: number;
  bySource: Map<string, number>;
}

async function count(run: () => Promise<unknown>): Promise<Count> {
  counted.clear();
  total = 0;
  counting = true;
  try {
    await run();
  } finally {
    counting = false;
  }
  return { total, bySource: new Map(counted) };
}

async function runAgent(name: string, maxTurns: number): Promise<string> {
  const handle = await env.client.startAgent({
    prompt: `promises benchmark (${name})`,
    name,
    cwd: env.workspace,
    model,
    maxTurns,
    permissionMode: 'bypassPermissions',
    limits,
  });
  const result = await withTimeout(handle.result(), 300_000, `${name} to finish`);
  if (result.status !== 'completed')
    throw new Error(`${name} ended ${result.status}: ${result.error ?? result.finalText}`);
  return handle.agentId;
}

/** The agent `agentId`'s conversation again as a bare workflow (in memory or durable), the same requests. */
async function runBareLoop(
  workflowType: 'floorServedLoop' | 'floorDurableLoop',
  agentId: string,
  extraPromisesPerCall = 0,
): Promise<void> {
  const key = `${workflowType}-${extraPromisesPerCall}-${agentId}`;
  bare.open(key, agentId);
  try {
    await withTimeout(
      env.temporalClient.workflow.execute(workflowType, {
        taskQueue: bare.taskQueue,
        workflowId: key,
        args: [key, extraPromisesPerCall],
      }),
      300_000,
      `${key} to finish`,
    );
  } finally {
    bare.forget(key);
  }
}

const perUnit = (value: number, units: number) => Number((value / units).toFixed(1));

try {
  writeReadFiles(env.workspace);
  // Warm-up (bundles, the model server's scripts, caches): not counted.
  const warmLoop = await runAgent('promises-loop-warmup', turns + 5);
  await runBareLoop('floorServedLoop', warmLoop);
  await bare.fanOut(await runAgent('promises-fan-warmup', children + 10), children);

  // 1. A conversation: `turns` turns of a model call and two Reads, then the answer.
  let loopId = '';
  const agentLoop = await count(async () => (loopId = await runAgent('promises-loop-measured', turns + 5)));
  const bareLoop = await count(() => runBareLoop('floorServedLoop', loopId));
  const durableBareLoop = await count(() => runBareLoop('floorDurableLoop', loopId));
  const matchedBareLoop = await count(() => runBareLoop('floorDurableLoop', loopId, runtimeExtraPromisesPerCall));

  // 2. A fan-out: one message of `children` background Agent calls; each child answers at once.
  let fanId = '';
  const agentFan = await count(async () => (fanId = await runAgent('promises-fan-measured', children + 10)));
  const bareFan = await count(() => bare.fanOut(fanId, children));

  const calls = turns + 1;
  console.log(
    `promises made by workflow code — each one a stack trace the SDK captures and source-maps (workflows in debugMode, counted by a promise hook)`,
  );
  console.log(
    `${''.padEnd(46)}${['runtime', 'bare SDK', 'bare durable', `bare dur. +${runtimeExtraPromisesPerCall}`].map((label) => label.padStart(14)).join('')}`,
  );
  console.log(
    `${`a model call and its 2 Reads (${turns + 1} calls)`.padEnd(46)}${[agentLoop, bareLoop, durableBareLoop, matchedBareLoop].map((c) => String(perUnit(c.total, calls)).padStart(14)).join('')}`,
  );
  console.log(
    `${`a child of a fan-out of ${children}, with the root's share`.padEnd(46)}${[agentFan, bareFan].map((c) => String(perUnit(c.total, children)).padStart(14)).join('')}${'-'.padStart(14).repeat(2)}`,
  );
  // bench:overhead's promise-matched loop adds a fixed number a call: say when the runtime's count has moved away from it.
  const extraNow = perUnit(agentLoop.total - durableBareLoop.total, calls);
  const matched = Math.abs(extraNow - runtimeExtraPromisesPerCall) <= 2;
  console.log(
    `the runtime makes ${extraNow} more a call than the durable bare loop; bench:overhead's "bare dur. +${runtimeExtraPromisesPerCall}" loop adds ${runtimeExtraPromisesPerCall}` +
      (matched ? '' : ` — update runtimeExtraPromisesPerCall (bench/helpers/read-turns.ts) to ${Math.round(extraNow)}`),
  );
  const top = (label: string, counts: Count, units: number) => {
    console.log(`\nwhere the runtime's come from, ${label} (innermost frame of its own code that made them)`);
    for (const [source, value] of [...counts.bySource].sort((a, b) => b[1] - a[1]).slice(0, 12))
      console.log(`${String(perUnit(value, units)).padStart(8)}  ${source}`);
  };
  top('a turn', agentLoop, calls);
  top('a fan-out child', agentFan, children);
  console.log(
    JSON.stringify({
      perTurn: {
        runtime: perUnit(agentLoop.total, calls),
        bareSdk: perUnit(bareLoop.total, calls),
        bareSdkDurable: perUnit(durableBareLoop.total, calls),
        bareSdkDurablePromises: perUnit(matchedBareLoop.total, calls),
      },
      runtimeExtraPerTurn: extraNow,
      overheadExtraPromisesPerCall: runtimeExtraPromisesPerCall,
      perFanoutChild: { runtime: perUnit(agentFan.total, children), bareSdk: perUnit(bareFan.total, children) },
      turns: calls,
      children,
    }),
  );
} catch (error) {
  console.error(`bench:promises did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await bare.close();
  await env.close();
}
