// npm run bench:spawn — Agent tool call → the child's first model request: one at a time, and N children fanned out at once.
import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Turn } from '../src/model-server/server';
import { startBareSdk } from './helpers/bare-sdk';
import { createBenchEnv, percentile } from './helpers/bench-env';
import { sampleCpu, type CpuSpan } from './helpers/cpu';
import { firstRequestAt, requestsByAgent } from './helpers/model-log';
import { createTimedFetch, modelCallsOf } from './helpers/timed-fetch';
import { ms, withTimeout } from './helpers/wait';

const spawns = Number(process.env.BENCH_SPAWNS ?? 30);
/** The collection case: sequential spawns in a workspace whose `.claude/agents` holds as many files as a public collection. */
const collection = { files: Number(process.env.BENCH_AGENT_FILES ?? 100), spawns: Math.max(5, Math.round(spawns / 2)) };
const fanouts = [1, 10, 50];
const limits = { maxChildrenPerAgent: 60, maxAgentsPerTree: 60 };
const model = 'claude-test-tiny';

const agentCall = (description: string, background: boolean) => ({
  name: 'Agent',
  input: {
    description,
    prompt: `bench child: ${description}`,
    subagent_type: 'general-purpose',
    ...(background ? { run_in_background: true } : {}),
  },
});
// A fan-out root is woken by notifications of finished children, possibly one by one.
const acknowledgements = (count: number): Turn[] => Array.from({ length: count }, () => ({ text: 'noted' }));

const timed = createTimedFetch();
const env = await createBenchEnv(
  {
    kind: 'scripted',
    scenario: {
      agents: [
        {
          match: { agentName: 'warmup-root' },
          turns: [{ toolUses: [agentCall('warmup 1', false), agentCall('warmup 2', false)] }, { text: 'warm' }],
        },
        {
          match: { agentName: 'latency-root' },
          turns: [
            ...Array.from({ length: spawns }, (_, index) => ({ toolUses: [agentCall(`latency ${index + 1}`, false)] })),
            { text: 'latency done' },
          ],
        },
        {
          match: { agentName: 'collection-root' },
          turns: [
            ...Array.from({ length: collection.spawns }, (_, index) => ({
              toolUses: [agentCall(`collection ${index + 1}`, false)],
            })),
            { text: 'collection done' },
          ],
        },
        ...fanouts.map((count) => ({
          match: { agentName: `fanout-${count}` },
          turns: [
            { toolUses: Array.from({ length: count }, (_, index) => agentCall(`fanout ${count}/${index + 1}`, true)) },
            ...acknowledgements(count + 2),
          ],
        })),
        // Every child answers at once.
        { match: { userIncludes: 'bench child' }, turns: [{ text: 'child done' }] },
      ],
    },
  },
  { fetch: timed.fetch },
);
// Each fan-out again as bare Temporal workflows right after the agent's: the SDK's and the server's own cost.
const bare = await startBareSdk(
  env,
  new Anthropic({ apiKey: 'bench', baseURL: env.modelServer.url, maxRetries: 0 }),
  'spawn-bare-sdk',
);
// CPU of this process (worker, model server) and of the dev server, for each fan-out's span.
const cpu = sampleCpu(env.server.process!.pid!);

/**
 * A workspace with `count` agent files shaped like those of public collections: a description with an
 * example, four tools, a model, and a ~3 KB prompt.
 */
function collectionWorkspace(count: number): string {
  const cwd = path.join(env.workspace, 'with-collection');
  const agents = path.join(cwd, '.claude', 'agents');
  fs.mkdirSync(agents, { recursive: true });
  for (let index = 0; index < count; index++) {
    const description = `Use this agent for area ${index} work. Examples: <example>Context: the user needs help with area ${index}. user: "Check area ${index}" assistant: "I'll use the area-${index} agent"</example>`;
    const prompt = `You are the expert for area ${index}.\n\n${'Work through the task step by step, read the relevant files first, and report what you found with file paths and line numbers.\n'.repeat(25)}`;
    fs.writeFileSync(
      path.join(agents, `area-${index}.md`),
      `---\nname: area-${index}\ndescription: ${JSON.stringify(description)}\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\n\n${prompt}`,
    );
  }
  return cwd;
}

const startRoot = (name: string, maxTurns: number, cwd = env.workspace) =>
  env.client.startAgent({
    prompt: `spawn benchmark (${name})`,
    name,
    cwd,
    model,
    maxTurns,
    permissionMode: 'bypassPermissions',
    limits,
  });

async function runRoot(name: string, maxTurns: number, timeoutMs: number, cwd?: string) {
  const handle = await startRoot(name, maxTurns, cwd);
  const result = await withTimeout(handle.result(), timeoutMs, `root ${name} to finish`);
  if (result.status !== 'completed')
    throw new Error(`root ${name} ended ${result.status}: ${result.error ?? result.finalText}`);
  return handle;
}

/** Close times (server clock) of agents that must all have completed. */
async function completedCloseTimes(agentIds: string[]): Promise<number[]> {
  return Promise.all(
    agentIds.map(async (agentId) => {
      const description = await env.client
        .getAgent(agentId)
        .describe()
        .catch(() => {
          throw new Error(`child ${agentId} was never started (see the parent's tool results: a refused spawn?)`);
        });
      if (description.status.name !== 'COMPLETED' || !description.closeTime)
        throw new Error(`child ${agentId} is ${description.status.name}, expected COMPLETED`);
      return description.closeTime.getTime();
    }),
  );
}

/**
 * The fan-out of `rootId` as bare workflows (`floorServedFanParent`): the root's first request, then its
 * children started as the runtime starts one message's Agent calls (10 at a time), each a local activity
 * and the child's own first request — the same requests, nothing of the runtime. Ms from the parent's
 * answer to each child's first request, as for the agent.
 */
async function bareFanOut(
  rootId: string,
  count: number,
): Promise<{ firstChild: number; childP50: number; lastChild: number; cpu: CpuSpan }> {
  const { parent, childKeys } = await bare.fanOut(rootId, count);
  const firsts = firstRequestAt(env.modelServer, childKeys).map((at, index) => {
    if (at === undefined) throw new Error(`bare child ${childKeys[index]} never called the model`);
    return at - parent.answeredAt;
  });
  const lastChild = Math.max(...firsts);
  return {
    firstChild: Math.min(...firsts),
    childP50: percentile(firsts, 50),
    lastChild,
    cpu: cpu.between(parent.answeredAt, parent.answeredAt + lastChild),
  };
}

/** Time of the parent's n-th model response (the one with the Agent tool_use), as the worker finished reading it. */
function parentResponseEnd(rootId: string, turn: number): number {
  const call = modelCallsOf(timed.calls, rootId)[turn];
  if (call?.finishedAt === undefined)
    throw new Error(`no finished model call ${turn} of ${rootId} in the worker's fetch log`);
  return call.finishedAt;
}

function childFirstRequests(childIds: string[]): number[] {
  return firstRequestAt(env.modelServer, childIds).map((at, index) => {
    if (at === undefined) throw new Error(`child ${childIds[index]} never called the model`);
    return at;
  });
}

try {
  // Warm-up (workflow bundle in the worker, JIT, connections): not measured.
  await runRoot('warmup-root', 5, 120_000);

  // 1. Sequential foreground spawns: turn n of the root spawns child n+1, which answers at once.
  const sequentialSpawns = async (name: string, count: number, cwd?: string) => {
    const root = await runRoot(name, count + 5, 300_000, cwd);
    const ids = Array.from({ length: count }, (_, index) => `${root.agentId}.${index + 1}`);
    await completedCloseTimes(ids);
    const firsts = childFirstRequests(ids);
    return { root, firsts, fromResponseEnd: firsts.map((at, index) => at - parentResponseEnd(root.agentId, index)) };
  };
  const { root: latency, firsts, fromResponseEnd } = await sequentialSpawns('latency-root', spawns);
  const served = requestsByAgent(env.modelServer).get(latency.agentId) ?? [];
  // Server-side view: the reply is written right after the request arrives (scripted delay 0).
  const fromServerRequest = firsts.map((at, index) => {
    const request = served.find((candidate) => candidate.turnIndex === index);
    if (!request) throw new Error(`no served request for turn ${index} of ${latency.agentId}`);
    return at - request.receivedAt;
  });

  // The same with a collection of agent files in reach: every agent started loads them (its roster, its types).
  const withCollection = (
    await sequentialSpawns('collection-root', collection.spawns, collectionWorkspace(collection.files))
  ).fromResponseEnd;

  // 2. Fan-out: one assistant message with N background Agent calls, on one worker.
  const fanout: Record<
    string,
    {
      firstChild: number;
      lastChild: number;
      childP50: number;
      allChildrenFinished: number;
      rootFinished: number;
      cpu: CpuSpan;
    }
  > = {};
  const bareFanout: Record<string, { firstChild: number; childP50: number; lastChild: number; cpu: CpuSpan }> = {};
  for (const count of fanouts) {
    const root = await runRoot(`fanout-${count}`, count + 10, 300_000);
    const ids = Array.from({ length: count }, (_, index) => `${root.agentId}.${index + 1}`);
    const launchedAt = parentResponseEnd(root.agentId, 0);
    const childFirsts = childFirstRequests(ids).map((at) => at - launchedAt);
    const closed = await completedCloseTimes(ids);
    const rootClosed = (await root.describe()).closeTime?.getTime() ?? Number.NaN;
    const lastChild = Math.max(...childFirsts);
    fanout[count] = {
      firstChild: Math.min(...childFirsts),
      lastChild,
      cpu: cpu.between(launchedAt, launchedAt + lastChild),
      childP50: percentile(childFirsts, 50),
      allChildrenFinished: Math.max(...closed) - launchedAt,
      rootFinished: rootClosed - launchedAt,
    };
    bareFanout[count] = await bareFanOut(root.agentId, count);
  }

  const row = (label: string, values: number[]) =>
    `${label.padEnd(34)}${[50, 95].map((p) => String(percentile(values, p)).padStart(8)).join('')}${String(Math.min(...values)).padStart(8)}${String(Math.max(...values)).padStart(8)}`;
  console.log(
    `spawn latency: Agent tool call → the child's first model request, ${spawns} sequential foreground spawns (ms)`,
  );
  console.log(`${''.padEnd(34)}${['p50', 'p95', 'min', 'max'].map((label) => label.padStart(8)).join('')}`);
  console.log(row("from the parent's response end", fromResponseEnd));
  console.log(row("from the parent's request served", fromServerRequest));
  console.log(`each spawn in order (from the response end): ${fromResponseEnd.join(' ')}`);
  console.log(row(`with ${collection.files} agent files (${collection.spawns} spawns)`, withCollection));
  console.log('');
  console.log(
    "fan-out: N background children in one assistant message, one worker (ms from the parent's response end)",
  );
  console.log(
    `${'N'.padStart(4)}${['first child', 'child p50', 'last child', 'all finished', 'root finished', 'bare first', 'bare p50', 'bare last'].map((label) => label.padStart(15)).join('')}`,
  );
  for (const count of fanouts) {
    const result = fanout[count]!;
    const bareResult = bareFanout[count]!;
    const cells = [
      result.firstChild,
      result.childP50,
      result.lastChild,
      result.allChildrenFinished,
      result.rootFinished,
      bareResult.firstChild,
      bareResult.childP50,
      bareResult.lastChild,
    ];
    console.log(`${String(count).padStart(4)}${cells.map((value) => String(ms(value)).padStart(15)).join('')}`);
  }
  console.log(
    "bare: the same fan-out as bare Temporal workflows right after (bench/floor/workflows.ts, floorServedFanParent): the root's and each child's first request, 10 children at a time, nothing of the runtime",
  );
  console.log('');
  console.log(
    "CPU from the parent's response end to the last child's first request, ms a child (bench process: worker and model server; dev server)",
  );
  console.log(
    `${'N'.padStart(4)}${['agent bench', 'agent server', 'bare bench', 'bare server', 'agent wall', 'CPU / 2 cores'].map((label) => label.padStart(15)).join('')}`,
  );
  const perChild = (value: number, count: number) => Math.round((value / count) * 10) / 10;
  for (const count of fanouts) {
    const { cpu: agentCpu, lastChild } = fanout[count]!;
    const bareCpu = bareFanout[count]!.cpu;
    const cells = [
      perChild(agentCpu.benchMs, count),
      perChild(agentCpu.serverMs, count),
      perChild(bareCpu.benchMs, count),
      perChild(bareCpu.serverMs, count),
      ms(lastChild),
      ms((agentCpu.benchMs + agentCpu.serverMs) / 2),
    ];
    console.log(`${String(count).padStart(4)}${cells.map((value) => String(value).padStart(15)).join('')}`);
  }
  console.log(
    'On 2 cores a fan-out that keeps both busy lasts about its CPU / 2: its CPU moves with the code, its wall time also with the minute.',
  );
  const byCount = <R>(results: Record<string, R>, pick: (result: R) => number) =>
    Object.fromEntries(fanouts.map((count) => [String(count), ms(pick(results[count]!))]));
  console.log(
    JSON.stringify({
      spawnLatencyMsP50: percentile(fromResponseEnd, 50),
      spawnLatencyMsP95: percentile(fromResponseEnd, 95),
      spawnLatencyMsMin: Math.min(...fromResponseEnd),
      spawnLatencyMsMax: Math.max(...fromResponseEnd),
      spawnLatencyFromServedRequestMsP50: percentile(fromServerRequest, 50),
      spawnLatencyFromServedRequestMsP95: percentile(fromServerRequest, 95),
      spawns,
      spawnLatencyWithAgentFilesMsP50: percentile(withCollection, 50),
      spawnLatencyWithAgentFilesMsP95: percentile(withCollection, 95),
      agentFiles: collection.files,
      fanoutMs: byCount(fanout, (result) => result.lastChild),
      fanoutFirstChildMs: byCount(fanout, (result) => result.firstChild),
      fanoutAllChildrenFinishedMs: byCount(fanout, (result) => result.allChildrenFinished),
      fanoutRootFinishedMs: byCount(fanout, (result) => result.rootFinished),
      bareSdkFanoutMs: byCount(bareFanout, (result) => result.lastChild),
      bareSdkFanoutFirstChildMs: byCount(bareFanout, (result) => result.firstChild),
      fanoutCpuMsPerChild: Object.fromEntries(
        fanouts.map((count) => [
          String(count),
          {
            agent: {
              bench: perChild(fanout[count]!.cpu.benchMs, count),
              server: perChild(fanout[count]!.cpu.serverMs, count),
            },
            bare: {
              bench: perChild(bareFanout[count]!.cpu.benchMs, count),
              server: perChild(bareFanout[count]!.cpu.serverMs, count),
            },
          },
        ]),
      ),
    }),
  );
} catch (error) {
  console.error(`bench:spawn did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  cpu.stop();
  await bare.close();
  await env.close();
}
