// npm run bench:long — one agent runs 300 turns with 2 KB tool results against a model whose context
// window is far smaller than the whole conversation: compaction keeps every request inside the window,
// and the history grows by about the same number of bytes per turn from the first turn to the last.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { contextWindowOf } from '../src/shared/model/context-windows';
import { createBenchEnv, eventBytes } from './helpers/bench-env';

const turns = Number(process.env.BENCH_TURNS ?? 300);
const model = 'claude-test-small';
const contextWindow = contextWindowOf(model);
const marker = 'long-run benchmark';

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: [
      {
        match: { userIncludes: marker },
        turns: [
          ...Array.from({ length: turns - 1 }, (_, index) => ({
            text: `Turn ${index + 1}: reading the log again.`,
            toolUses: [{ name: 'Read', input: { file_path: 'log.txt' } }],
          })),
          { text: 'Finished the long-run benchmark.' },
        ],
      },
    ],
  },
});
try {
  // 2 KB of file: Read's numbered lines make the tool result a little over 2 KB.
  writeFileSync(
    path.join(env.workspace, 'log.txt'),
    Array.from({ length: 32 }, (_, index) => `entry ${String(index).padStart(2, '0')}: ${'z'.repeat(52)}`).join('\n'),
  );
  const started = Date.now();
  const handle = await env.client.startAgent({
    prompt: marker,
    cwd: env.workspace,
    model,
    tools: ['Read'],
    maxTurns: turns + 5,
  });
  const result = await handle.result();
  const elapsedMs = Date.now() - started;

  const requests = env.modelServer
    .requests()
    .filter((request) => request.path === '/v1/messages' && request.headers['x-subagents-agent-id'] === handle.agentId);
  const failed = requests.filter((request) => request.status !== 200);
  const compactions = requests.filter((request) => request.headers['x-subagents-purpose'] === 'compaction').length;
  const requestTokens = requests.map((request) => {
    const usage = request.usage;
    return usage ? usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens : 0;
  });
  const maxRequestTokens = Math.max(...requestTokens);

  // Every run of the agent, oldest first (a long agent may continue-as-new).
  const runs: { runId: string; start: number }[] = [];
  for await (const execution of env.temporalClient.workflow.list({ query: `WorkflowId = '${handle.agentId}'` })) {
    runs.push({ runId: execution.runId, start: execution.startTime.getTime() });
  }
  runs.sort((left, right) => left.start - right.start);
  const events = [];
  for (const run of runs)
    events.push(
      ...((await env.temporalClient.workflow.getHandle(handle.agentId, run.runId).fetchHistory()).events ?? []),
    );
  // A turn starts with its model call; a compaction's events count in the turn they happen in.
  const perTurn: number[] = [];
  let setupBytes = 0;
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') perTurn.push(0);
    if (perTurn.length === 0) setupBytes += eventBytes(event);
    else perTurn[perTurn.length - 1]! += eventBytes(event);
  }
  const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const first10 = average(perTurn.slice(0, 10));
  const last10 = average(perTurn.slice(-10));
  const ratio = Number((last10 / first10).toFixed(3));

  console.log(
    `long-run benchmark: ${result.turns} turns, ${result.status}, ${runs.length} run(s), ${events.length} events (setup ${setupBytes} bytes), ${(elapsedMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `model ${model}, context window ${contextWindow} tokens; ${compactions} compaction(s); ${failed.length} failed request(s)`,
  );
  console.log('turns      request tokens (max)   history bytes/turn (avg)');
  for (let start = 0; start < perTurn.length; start += 30) {
    const end = Math.min(start + 30, perTurn.length);
    console.log(
      `${String(start + 1).padStart(3)}-${String(end).padEnd(6)} ${String(Math.max(...requestTokens.slice(start, end))).padEnd(22)} ${Math.round(average(perTurn.slice(start, end)))}`,
    );
  }
  console.log(
    JSON.stringify({
      turns: result.turns,
      status: result.status,
      compactions,
      maxRequestTokens,
      contextWindow,
      historyBytesPerTurnLast10OverFirst10: ratio,
      runs: runs.length,
      failedRequests: failed.length,
      goalMet:
        result.turns === turns && result.status === 'completed' && maxRequestTokens <= contextWindow && ratio <= 1.2,
    }),
  );
} finally {
  await env.close();
}
