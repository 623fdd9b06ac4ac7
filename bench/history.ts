// npm run bench:history — history bytes per turn of one long agent: flat means each message is recorded once.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createBenchEnv, eventBytes } from './helpers/bench-env';

const turns = Number(process.env.BENCH_TURNS ?? 60);
// Long runs continue-as-new (as production agents do) so no single run's history grows without bound.
const continueAsNewAfterEvents = Number(process.env.BENCH_CAN_EVENTS ?? (turns > 100 ? 2000 : 10_000));

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: [
      {
        match: { userIncludes: 'history benchmark' },
        turns: [
          ...Array.from({ length: turns - 1 }, (_, index) => ({
            text: `Turn ${index + 1}: reading the notes again.`,
            toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }],
          })),
          { text: 'Finished the history benchmark.' },
        ],
      },
    ],
  },
});
try {
  writeFileSync(
    path.join(env.workspace, 'notes.txt'),
    Array.from({ length: 30 }, (_, index) => `line ${index}: some notes to read every turn`).join('\n'),
  );
  const started = Date.now();
  const handle = await env.client.startAgent({
    prompt: 'history benchmark',
    cwd: env.workspace,
    model: 'claude-test-tiny',
    maxTurns: turns + 5,
    limits: { continueAsNewAfterEvents },
  });
  const result = await handle.result();
  const elapsedMs = Date.now() - started;
  if (result.status !== 'completed' || result.turns !== turns)
    throw new Error(`benchmark agent ended ${result.status} after ${result.turns} turns`);

  // Every run of the agent, oldest first (continue-as-new makes a chain of runs).
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
  const perTurn: number[] = [];
  let current = -1;
  let setupBytes = 0;
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') {
      current += 1;
      perTurn.push(0);
    }
    if (current < 0) setupBytes += eventBytes(event);
    else perTurn[current]! += eventBytes(event);
  }
  const average = (values: number[]) => Math.round(values.reduce((sum, value) => sum + value, 0) / values.length);
  const first10 = average(perTurn.slice(0, 10));
  const last10 = average(perTurn.slice(-10));
  const total = setupBytes + perTurn.reduce((sum, value) => sum + value, 0);

  console.log(
    `history benchmark: ${turns} turns in ${runs.length} run(s), ${events.length} events, ${total} bytes, ${(elapsedMs / 1000).toFixed(1)} s`,
  );
  console.log('turns      bytes/turn (avg)');
  for (let start = 0; start < perTurn.length; start += 10) {
    console.log(
      `${String(start + 1).padStart(3)}-${String(Math.min(start + 10, perTurn.length)).padEnd(6)} ${average(perTurn.slice(start, start + 10))}`,
    );
  }
  console.log(
    JSON.stringify({
      turns,
      runs: runs.length,
      events: events.length,
      totalHistoryBytes: total,
      setupBytes,
      bytesPerTurnFirst10: first10,
      bytesPerTurnLast10: last10,
      lastOverFirst: Number((last10 / first10).toFixed(3)),
      goalMet: last10 <= 1.2 * first10,
    }),
  );
} finally {
  await env.close();
}
