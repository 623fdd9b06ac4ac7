// npm run bench:workflows — a fan-out/fan-in script run (docs/workflows.md): wall time against its critical path, the
// run's history (events, bytes, per agent) against the server's limits, the agents' histories, and the worker's RSS.
import proto from '@temporalio/proto';
import type { RunWorkflowOptions } from '../src/client/script-run-input';
import { createBenchEnv, eventBytes, percentile } from './helpers/bench-env';
import { sampleRss } from './helpers/rss';
import { ms, withTimeout } from './helpers/wait';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const agents = Number(process.env.BENCH_WORKFLOW_AGENTS ?? 100);
const large = agents > 100;
const concurrency = Number(process.env.BENCH_WORKFLOW_CONCURRENCY ?? (large ? 64 : 16));
const delayMs = Number(process.env.BENCH_WORKFLOW_DELAY_MS ?? (large ? 20 : 300));
const readers = agents - 1;
const emptyRuns = 3;
/** The server's limits on one workflow run's history (Temporal defaults: limit.historyCount/historySize.error/warn). */
const serverLimits = { events: 51_200, bytes: 50 * 1024 * 1024, warnEvents: 10_240, warnBytes: 10 * 1024 * 1024 };
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const finding = 'Reader finding: checked the assigned area; three notes, nothing blocking the release.';

const fanOutScript =
  `export const meta = { name: 'bench-fan', description: 'fan-out of readers, fan-in to one synthesis' };\n` +
  `phase('Read');\n` +
  `const found = await parallel(Array.from({ length: args.readers }, (_, index) => () => agent('bench reader ' + index, { label: 'reader ' + index })));\n` +
  `phase('Synthesize');\n` +
  `const synthesis = await agent('bench synthesis of ' + found.length + ' findings:\\n' + found.join('\\n'));\n` +
  `return { readers: found.length, answered: found.filter((text) => text !== null).length, synthesis };`;
const emptyScript = `export const meta = { name: 'bench-empty', description: 'no agents' };\nreturn 0;`;

const env = await createBenchEnv({
  kind: 'scripted',
  scenario: {
    agents: [
      { match: { userIncludes: 'bench reader' }, turns: [{ text: finding, delayMs }] },
      { match: { userIncludes: 'bench synthesis' }, turns: [{ text: 'Synthesis: all areas checked.', delayMs }] },
    ],
  },
});

const options = (more: RunWorkflowOptions = {}): RunWorkflowOptions => ({
  cwd: env.workspace,
  model: 'claude-test-tiny',
  permissionMode: 'bypassPermissions',
  // The script's concurrency is what is measured: the tree's running-agent limit stays out of its way.
  limits: { forking: false, maxAgentsPerTree: Math.max(concurrency + 8, 20) },
  ...more,
});

const fetchEvents = async (workflowId: string): Promise<HistoryEvent[]> =>
  (await env.temporalClient.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
const eventTypeName = (event: HistoryEvent) =>
  (proto.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');
const millisOf = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);

/** Worker time of a history's workflow tasks: each task's started → completed, in ms. */
function workflowTaskTimes(events: HistoryEvent[]): number[] {
  const started = new Map<string, number>();
  const times: number[] = [];
  for (const event of events) {
    if (event.workflowTaskStartedEventAttributes) started.set(String(event.eventId), millisOf(event));
    const completed = event.workflowTaskCompletedEventAttributes;
    if (completed) times.push(millisOf(event) - (started.get(String(completed.startedEventId)) ?? millisOf(event)));
  }
  return times;
}

/** Histories of many workflows, a few at a time (the dev server answers them one by one anyway). */
async function fetchMany(workflowIds: string[], atOnce = 8): Promise<HistoryEvent[][]> {
  const histories: HistoryEvent[][] = new Array(workflowIds.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < workflowIds.length) {
        const index = next++;
        histories[index] = await fetchEvents(workflowIds[index]!);
      }
    }),
  );
  return histories;
}

async function runFanOut(readerCount: number, timeoutMs: number) {
  const startedAt = Date.now();
  const run = await env.client.runWorkflow(
    fanOutScript,
    { readers: readerCount },
    options({ maxConcurrentAgents: concurrency }),
  );
  const result = await withTimeout(run.result(), timeoutMs, `the ${readerCount + 1}-agent run to finish`);
  const wallMs = Date.now() - startedAt;
  const value = result.structured as { readers: number; answered: number } | undefined;
  if (result.status !== 'completed' || value?.answered !== readerCount)
    throw new Error(`run ${run.runId} ended ${result.status}: ${result.error ?? result.finalText.slice(0, 300)}`);
  return { run, wallMs };
}

try {
  // Warm-up (workflow bundle, QuickJS module, JIT, connections): not measured.
  await runFanOut(3, 120_000);

  // QuickJS and the run's own bookkeeping without agents: an empty script, start → result.
  const empty: { wallMs: number; taskMs: number; events: number }[] = [];
  for (let index = 0; index < emptyRuns; index++) {
    const startedAt = Date.now();
    const run = await env.client.runWorkflow(emptyScript, undefined, options());
    const result = await run.result();
    if (result.status !== 'completed') throw new Error(`empty run ended ${result.status}: ${result.error}`);
    const events = await fetchEvents(run.runId);
    const taskMs = workflowTaskTimes(events).reduce((sum, value) => sum + value, 0);
    empty.push({ wallMs: Date.now() - startedAt, taskMs, events: events.length });
  }

  const rssBeforeMb = process.memoryUsage().rss / 1024 / 1024;
  const rss = sampleRss(process.pid);
  const { run, wallMs } = await runFanOut(readers, large ? 3_600_000 : 600_000);
  rss.stop();
  const rssAfterMb = process.memoryUsage().rss / 1024 / 1024;

  const description = await env.temporalClient.workflow.getHandle(run.runId).describe();
  const serverMs = (description.closeTime?.getTime() ?? Number.NaN) - description.startTime.getTime();
  const events = await fetchEvents(run.runId);
  const sizes = events.map(eventBytes);
  const historyBytes = sizes.reduce((sum, value) => sum + value, 0);
  const largestIndex = sizes.indexOf(Math.max(...sizes));
  const byType = new Map<string, number>();
  for (const event of events) byType.set(eventTypeName(event), (byType.get(eventTypeName(event)) ?? 0) + 1);
  const runTaskMs = workflowTaskTimes(events);

  const snapshot = await run.snapshot();
  const agentStarts = snapshot.agents.map((agent) => agent.startedAtMs ?? Number.NaN);
  const agentEnds = snapshot.agents.map((agent) => agent.endedAtMs ?? Number.NaN);
  const firstAgentMs = Math.min(...agentStarts) - snapshot.startedAtMs;
  const lastAgentEndMs = Math.max(...agentEnds) - snapshot.startedAtMs;

  const agentIds = Array.from({ length: agents }, (_, index) => `${run.runId}.${index + 1}`);
  const agentHistories = await fetchMany(agentIds);
  const agentEvents = agentHistories.map((history) => history.length);
  const agentTaskMs = agentHistories.flatMap(workflowTaskTimes);
  const agentBytes = agentHistories.map((history) => history.reduce((sum, event) => sum + eventBytes(event), 0));

  const idealMs = Math.ceil(readers / concurrency) * delayMs + delayMs;
  const figures = {
    agents,
    readers,
    concurrency,
    modelDelayMs: delayMs,
    wallMs,
    serverStartToCloseMs: serverMs,
    idealCriticalPathMs: idealMs,
    wallOverIdeal: Number((wallMs / idealMs).toFixed(2)),
    overheadMsPerAgent: ms((wallMs - idealMs) / agents),
    firstAgentStartedMs: firstAgentMs,
    lastAgentEndedMs: lastAgentEndMs,
    runHistory: {
      events: events.length,
      bytes: historyBytes,
      serverHistorySizeBytes: description.historySize ?? null,
      eventsPerAgent: ms(events.length / agents),
      bytesPerAgent: Math.round(historyBytes / agents),
      largestEventBytes: sizes[largestIndex] ?? 0,
      largestEventType: events[largestIndex] ? eventTypeName(events[largestIndex]) : null,
      workflowTasks: runTaskMs.length,
      workflowTaskMsP50: percentile(runTaskMs, 50),
      workflowTaskMsMax: Math.max(...runTaskMs),
      workflowTaskMsTotal: runTaskMs.reduce((sum, value) => sum + value, 0),
      ofEventLimit: Number((events.length / serverLimits.events).toFixed(4)),
      ofByteLimit: Number((historyBytes / serverLimits.bytes).toFixed(4)),
      ofEventWarning: Number((events.length / serverLimits.warnEvents).toFixed(4)),
      ofByteWarning: Number((historyBytes / serverLimits.warnBytes).toFixed(4)),
    },
    agentHistory: {
      workflowTaskMsP50: percentile(agentTaskMs, 50),
      eventsP50: percentile(agentEvents, 50),
      eventsMax: Math.max(...agentEvents),
      bytesP50: percentile(agentBytes, 50),
      bytesMax: Math.max(...agentBytes),
    },
    workerRss: {
      where: 'in-process (the bench process: worker, model server, client)',
      beforeMb: ms(rssBeforeMb),
      afterMb: ms(rssAfterMb),
      peakMb: ms(rss.peakMb()),
    },
    emptyRun: {
      runs: emptyRuns,
      wallMsP50: percentile(
        empty.map((entry) => entry.wallMs),
        50,
      ),
      workflowTaskMsP50: ms(
        percentile(
          empty.map((entry) => entry.taskMs),
          50,
        ),
      ),
      events: empty[0]?.events ?? 0,
    },
  };

  const row = (label: string, value: string | number) => console.log(`${label.padEnd(58)}${String(value)}`);
  console.log(
    `workflows benchmark: ${agents}-agent fan-out/fan-in script (${readers} readers in parallel, then 1 synthesis), ` +
      `concurrency ${concurrency}, one scripted model turn of ${delayMs} ms an agent`,
  );
  row('wall time, runWorkflow → result (ms)', wallMs);
  row("server's start → close of the run (ms)", serverMs);
  row(`ideal critical path ⌈${readers}/${concurrency}⌉×${delayMs} + ${delayMs} (ms)`, idealMs);
  row('wall / ideal', figures.wallOverIdeal);
  row('overhead an agent, (wall − ideal) / agents (ms)', figures.overheadMsPerAgent);
  row('first agent started / last ended, from run start (ms)', `${firstAgentMs} / ${lastAgentEndMs}`);
  row(
    "run's history: events / bytes",
    `${events.length} / ${historyBytes} (server: ${description.historySize ?? '?'})`,
  );
  row(
    "run's history an agent: events / bytes",
    `${figures.runHistory.eventsPerAgent} / ${figures.runHistory.bytesPerAgent}`,
  );
  row(
    "run's largest event (bytes, type)",
    `${figures.runHistory.largestEventBytes} ${figures.runHistory.largestEventType}`,
  );
  row(
    "run's workflow tasks: count / p50 / max / total (ms)",
    `${runTaskMs.length} / ${figures.runHistory.workflowTaskMsP50} / ${figures.runHistory.workflowTaskMsMax} / ${figures.runHistory.workflowTaskMsTotal}`,
  );
  row(
    'of the limit: events 51,200 / bytes 50 MB',
    `${(figures.runHistory.ofEventLimit * 100).toFixed(2)} % / ${(figures.runHistory.ofByteLimit * 100).toFixed(2)} %`,
  );
  row(
    'of the warning: events 10,240 / bytes 10 MB',
    `${(figures.runHistory.ofEventWarning * 100).toFixed(2)} % / ${(figures.runHistory.ofByteWarning * 100).toFixed(2)} %`,
  );
  row("agents' histories: events p50 / max", `${figures.agentHistory.eventsP50} / ${figures.agentHistory.eventsMax}`);
  row("agents' workflow tasks p50 (ms)", figures.agentHistory.workflowTaskMsP50);
  row("agents' histories: bytes p50 / max", `${figures.agentHistory.bytesP50} / ${figures.agentHistory.bytesMax}`);
  row(
    'RSS before / after / peak (MiB)',
    `${figures.workerRss.beforeMb} / ${figures.workerRss.afterMb} / ${figures.workerRss.peakMb}`,
  );
  row(
    'empty script run: wall p50 / its workflow tasks (ms)',
    `${figures.emptyRun.wallMsP50} / ${figures.emptyRun.workflowTaskMsP50}`,
  );
  console.log(
    `run's events by type: ${[...byType.entries()]
      .sort((left, right) => right[1] - left[1])
      .map(([type, count]) => `${type} ${count}`)
      .join(', ')}`,
  );
  console.log(
    `RSS is the bench process's: the worker runs in it (workflows on its worker thread), beside the model server and the client. ` +
      `An empty script's run (${emptyRuns} runs) is QuickJS, the settings load and the run's start and end, no agents. Times are this minute's on 2 shared cores.`,
  );
  console.log(
    JSON.stringify({
      ...figures,
      runEventsByType: Object.fromEntries(byType),
      historyLimitMb: mib(serverLimits.bytes),
    }),
  );
} catch (error) {
  console.error(`bench:workflows did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await env.close();
}
