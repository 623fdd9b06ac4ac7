// npm run bench:overhead — what durability costs one agent: the same scripted conversation run by the durable
// agent (dev server, worker, model activity) and by a plain in-process loop that sends the same requests to the
// same model server and calls the same tool functions, without Temporal.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { buildModelRequest } from '../src/activities/request-builder';
import { toolRunners } from '../src/activities/tools';
import type { Turn } from '../src/model-server/server';
import { withoutCacheControl } from '../src/model-server/tokens';
import type { ContentBlock, MessageParam, ToolDefinition, ToolUseBlock } from '../src/shared/messages';
import { buildToolResultMessage, type ToolOutcome } from '../src/shared/tool-results';
import type { WorkspaceToolName } from '../src/shared/tool-classification';
import { createBenchEnv } from './helpers/bench-env';
import { requestsByAgent } from './helpers/model-log';
import { addTaskTimes, emptyTaskTimes, medianOf, type TaskTimes } from './helpers/task-times';
import { ms, withTimeout } from './helpers/wait';

const toolTurns = Number(process.env.BENCH_TURNS ?? 20);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const latencies = [0, 200];
const model = 'claude-test-tiny';
/**
 * Every turn but the last: two Reads of small files, run side by side (as the runtime runs read-only tools).
 * Read takes about a millisecond; Glob and Bash start a process (ripgrep, a shell: 30-60 ms each on a loaded
 * 2-core machine), which would hide most of the runtime's own cost in the in-process baseline.
 */
const toolUses = [
  { name: 'Read', input: { file_path: 'notes.txt' } },
  { name: 'Read', input: { file_path: 'todo.txt' } },
];
const turnsFor = (delayMs: number): Turn[] => [
  ...Array.from({ length: toolTurns }, (_, index): Turn => ({ text: `Turn ${index + 1}.`, toolUses, delayMs })),
  { text: 'Overhead benchmark done.', delayMs },
];
const modelCalls = toolTurns + 1;

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: { agents: [...latencies, 'warmup'].map((latency) => ({ match: { agentName: `overhead-${latency}` }, turns: turnsFor(latency === 'warmup' ? 0 : Number(latency)) })) },
});
const anthropic = new Anthropic({ apiKey: 'bench', baseURL: env.modelServer.url, maxRetries: 0 });

interface DurableRun {
  agentId: string;
  wallMs: number;
  /** startAgent → the first model request reaching the model server (setup activities, first workflow tasks). */
  setupMs: number;
  /** The first request's system prompt, tools, first message and headers: what the in-process loop starts from. */
  first: { body: { max_tokens: number; system: { text: string }[]; tools?: (ToolDefinition & { cache_control?: unknown })[]; messages: MessageParam[] }; headers: Record<string, string> };
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
  const headers = Object.fromEntries(Object.entries(requests[0]!.headers).filter(([key]) => key.startsWith('x-subagents-')));
  return { agentId: handle.agentId, wallMs, setupMs: requests[0]!.receivedAt - startedAt, first: { body: JSON.parse(requests[0]!.rawBody), headers }, lastBody: requests[requests.length - 1]!.rawBody };
}

/** The assistant message as the model activity records it (text and tool_use blocks: these scripted turns have no thinking). */
function assistantBlocks(content: Anthropic.Messages.ContentBlock[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === 'text') blocks.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use') blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: (block.input ?? {}) as Record<string, unknown> });
  }
  return blocks;
}

/** The same conversation without Temporal: stream a turn, run its tools concurrently with the activities' own functions, repeat. */
async function runInProcess(durable: DurableRun): Promise<{ wallMs: number; modelMs: number; toolsMs: number; modelCalls: number; sameLastRequest: boolean }> {
  const { body, headers } = durable.first;
  const tools = (body.tools ?? []).map(({ cache_control: _ignored, ...tool }) => tool as ToolDefinition);
  const systemPrompt = body.system.map((block) => block.text).join('');
  // The first user message as the agent sent it, without the request builder's breakpoint (it adds its own).
  const first = body.messages[0]!;
  const firstContent = typeof first.content === 'string' ? first.content : first.content.map((block) => withoutCacheControl(block as unknown as Record<string, unknown>) as unknown as ContentBlock);
  const messages: MessageParam[] = [{ role: first.role, content: firstContent }];
  const context = { agentId: durable.agentId, workspaceRoot: env.workspace, cwd: env.workspace };
  const toolEnv = { signal: new AbortController().signal, heartbeat: () => undefined };
  const sentBefore = env.modelServer.requests().length;
  const started = performance.now();
  let calls = 0;
  let modelMs = 0;
  let toolsMs = 0;
  for (;;) {
    const modelStarted = performance.now();
    const request = buildModelRequest({ model, maxTokens: body.max_tokens, systemPrompt, tools, messages });
    const message = await anthropic.messages.stream(request as Anthropic.Messages.MessageStreamParams, { headers }).finalMessage();
    modelMs += performance.now() - modelStarted;
    calls += 1;
    const content = assistantBlocks(message.content);
    messages.push({ role: 'assistant', content });
    const uses = content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    if (uses.length === 0) break;
    const outcomes: Record<string, ToolOutcome> = {};
    const toolsStarted = performance.now();
    await Promise.all(
      uses.map(async (use) => {
        const result = await toolRunners[use.name as WorkspaceToolName]({ context, toolUseId: use.id, input: use.input }, toolEnv);
        outcomes[use.id] = { content: result.content, isError: result.isError };
      }),
    );
    toolsMs += performance.now() - toolsStarted;
    messages.push(buildToolResultMessage(uses, outcomes, 'missing'));
  }
  const wallMs = performance.now() - started;
  const sent = env.modelServer.requests().slice(sentBefore).filter((request) => request.path === '/v1/messages');
  return { wallMs, modelMs, toolsMs, modelCalls: calls, sameLastRequest: sent[sent.length - 1]?.rawBody === durable.lastBody };
}

/** Adds the task times of one durable run's history. */
async function taskTimes(agentId: string, into: TaskTimes): Promise<void> {
  addTaskTimes((await env.temporalClient.workflow.getHandle(agentId).fetchHistory()).events ?? [], into);
}

const median = medianOf;

try {
  writeFileSync(path.join(env.workspace, 'notes.txt'), Array.from({ length: 20 }, (_, index) => `note ${index}: keep the overhead small`).join('\n'));
  writeFileSync(path.join(env.workspace, 'todo.txt'), Array.from({ length: 10 }, (_, index) => `todo ${index}: measure, then optimise`).join('\n'));
  // Warm-up (bundle, JIT, connections, the server's caches): not measured.
  await runInProcess(await runDurable('overhead-warmup'));

  const rows: { latency: number; durable: number; setup: number; inProcess: number; inProcessModel: number; inProcessTools: number; ratio: number; perCall: number; identical: boolean; times: TaskTimes }[] = [];
  for (const latency of latencies) {
    const durable: number[] = [];
    const setup: number[] = [];
    const inProcess: number[] = [];
    const inProcessModel: number[] = [];
    const inProcessTools: number[] = [];
    let identical = true;
    const times = emptyTaskTimes();
    for (let run = 0; run < runs; run++) {
      const durableRun = await runDurable(`overhead-${latency}`);
      const loop = await runInProcess(durableRun);
      if (loop.modelCalls !== modelCalls) throw new Error(`the in-process loop made ${loop.modelCalls} model calls, expected ${modelCalls}`);
      durable.push(durableRun.wallMs);
      setup.push(durableRun.setupMs);
      inProcess.push(loop.wallMs);
      inProcessModel.push(loop.modelMs);
      inProcessTools.push(loop.toolsMs);
      identical &&= loop.sameLastRequest;
      await taskTimes(durableRun.agentId, times);
    }
    const durableMs = median(durable);
    const inProcessMs = median(inProcess);
    rows.push({
      latency,
      durable: durableMs,
      setup: median(setup),
      inProcess: inProcessMs,
      inProcessModel: median(inProcessModel),
      inProcessTools: median(inProcessTools),
      ratio: durableMs / inProcessMs,
      perCall: (durableMs - inProcessMs) / modelCalls,
      identical,
      times,
    });
  }

  console.log(`overhead benchmark: ${toolTurns} turns of 2 tool calls (two Reads of small files) + a final answer = ${modelCalls} model calls; median of ${runs} runs (ms)`);
  const columns = ['durable', 'of it setup', 'in-process', 'of it model', 'of it tools', 'ratio', 'per call', 'same requests'];
  console.log(`${'latency'.padStart(8)}${columns.map((label) => label.padStart(14)).join('')}`);
  for (const row of rows) {
    const cells = [ms(row.durable), ms(row.setup), ms(row.inProcess), ms(row.inProcessModel), ms(row.inProcessTools), row.ratio.toFixed(2), ms(row.perCall), row.identical ? 'yes' : 'NO'];
    console.log(`${String(row.latency).padStart(8)}${cells.map((value) => String(value).padStart(14)).join('')}`);
  }
  console.log('durable: startAgent → result; of it setup: startAgent → its first model request; in-process: first request → final answer');
  console.log('(of it model: building, sending and reading the requests; of it tools: running the tool calls); per call = (durable − in-process) / model calls;');
  console.log("same requests: the loop's last request body is byte-identical to the durable agent's");
  console.log('');
  console.log('durable runs, from their histories: median ms scheduled → started (waiting for a poller) and started → completed (on the worker)');
  const kinds = ['workflowTask', 'callModel', 'tools'] as const;
  console.log(`${'latency'.padStart(8)}${kinds.flatMap((kind) => [`${kind} wait`, `${kind} run`]).map((label) => label.padStart(18)).join('')}`);
  for (const row of rows) {
    const cells = kinds.flatMap((kind): (number | string)[] =>
      kind === 'tools' && row.times.wait.tools.length === 0 && row.times.localTools > 0 ? ['-', 'in workflow task'] : [ms(median(row.times.wait[kind])), ms(median(row.times.run[kind]))],
    );
    console.log(`${String(row.latency).padStart(8)}${cells.map((value) => String(value).padStart(18)).join('')}`);
  }
  console.log('(Reads run as local activities inside the workflow task when no workspace worker holds the files: their time is in "workflowTask run")');
  const byLatency = (pick: (row: (typeof rows)[number]) => number) => Object.fromEntries(rows.map((row) => [String(row.latency), pick(row)]));
  console.log(
    JSON.stringify({
      ratio: byLatency((row) => Number(row.ratio.toFixed(2))),
      perCallOverheadMs: byLatency((row) => ms(row.perCall)),
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
  await env.close();
}
