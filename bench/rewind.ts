// npm run bench:rewind — what going back in time costs (docs/rewind.md). First the workspace checkpoints alone on a
// clone of this repository (bench/rewind-checkpoints.ts). Then on the real server, each agent in its own clone: a
// 100-turn agent whose every turn appends a line to a file (a checkpoint a turn), forked at turns 50 and 100; the same
// turns reading instead of writing (no checkpoints), for its history; and one rewound in place while it runs.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentHandle } from '../src/client/client';
import { sandboxOptionsFromEnv, sandboxProblem } from '../src/config/sandbox-options';
import type { AgentResult } from '../src/shared/agents/agent';
import { checkpointRefPrefix } from '../src/shared/workspace/checkpoints';
import { historySize } from './helpers/agent-history';
import { createBenchEnv, percentile } from './helpers/bench-env';
import { timeFork, type ForkTiming } from './helpers/fork-times';
import { cloneRepository, looseObjectBytes, refCount } from './helpers/git-workspace';
import { requestsOf } from './helpers/model-log';
import { appendedLine, editedFile, rewindScenario } from './helpers/rewind-scenario';
import { timeRewind, untilWaiting } from './helpers/rewind-times';
import { ms, withTimeout } from './helpers/wait';
import { benchCheckpoints } from './rewind-checkpoints';

const turns = Number(process.env.BENCH_REWIND_TURNS ?? 100);
const half = Math.floor(turns / 2);
const repeats = Number(process.env.BENCH_REWIND_FORKS ?? 3);
const model = 'claude-sonnet-5';
const forks = [half, turns].flatMap((turn) =>
  Array.from({ length: repeats }, (_, index) => ({ agentId: `fork-t${turn}-${index + 1}`, turn })),
);
const worktreeFork = { agentId: `fork-t${half}-worktree`, turn: half };

// The checkpoints alone first, before the servers and the worker share the two cores.
const checkpoints = await benchCheckpoints();

// Without bubblewrap every Bash would be refused: run it unconfined, as the test suite then does, and say so.
const sandboxMissing = await sandboxProblem(sandboxOptionsFromEnv(process.env));
if (sandboxMissing) process.env.SUBAGENTS_SANDBOX = 'off';

const env = await createBenchEnv({ kind: 'scripted', scenario: rewindScenario({ turns, forks, worktreeFork }) });
const homeDir = path.join(env.workspace, 'home');
mkdirSync(homeDir);

const startIn = (name: string, cwd: string): Promise<AgentHandle> =>
  env.client.startAgent({
    prompt: `bench:rewind ${name}: ${turns} turns on ${editedFile}`,
    name,
    agentId: `rewind-bench-${name}`,
    cwd,
    model,
    permissionMode: 'bypassPermissions',
    maxTurns: turns * 3,
    homeDir,
  });

async function finished(handle: AgentHandle): Promise<AgentResult> {
  const result = await withTimeout(handle.result(), 1_800_000, `${handle.agentId}'s result`);
  if (result.status !== 'completed') throw new Error(`${handle.agentId} ended ${result.status}: ${result.error}`);
  return result;
}

/** Wall time of each turn: from one model request's arrival to the next one's (requests `from` to `to`, exclusive). */
function turnTimes(agentId: string, from = 0, to?: number): number[] {
  const arrivals = requestsOf(env.modelServer, agentId)
    .slice(from, to)
    .map((request) => request.receivedAt);
  return arrivals.slice(1).map((at, index) => at - arrivals[index]!);
}

const median = (values: number[]) => ms(percentile(values, 50));
const summary = (timings: ForkTiming[]) => ({
  returnedMsP50: median(timings.map((timing) => timing.returnedMs)),
  firstRequestMsP50: median(timings.map((timing) => timing.firstRequestMs)),
  firstRequestMsMax: Math.max(...timings.map((timing) => timing.firstRequestMs)),
  resultMsP50: median(timings.map((timing) => timing.resultMs)),
  inputTokens: timings[0]!.inputTokens,
  cacheReadInputTokens: timings[0]!.cacheReadInputTokens,
  cacheCreationInputTokens: timings[0]!.cacheCreationInputTokens,
  prefixIdentical: timings.every((timing) => timing.prefixIdentical),
});

try {
  // The writer: a checkpoint after each of its turns.
  const writerDir = cloneRepository(path.join(env.workspace, 'writer'));
  const objectsBefore = await looseObjectBytes(writerDir);
  let startedAt = Date.now();
  const writer = await startIn('writer', writerDir);
  await finished(writer);
  const writerWallMs = Date.now() - startedAt;
  const objectsAfter = await looseObjectBytes(writerDir);
  const writerTurns = await writer.turns();
  if (writerTurns.checkpointsUnavailable) throw new Error(`no checkpoints: ${writerTurns.checkpointsUnavailable}`);
  const checkpointed = writerTurns.boundaries.filter((boundary) => boundary.checkpoint !== undefined).length;
  // The opening and every append: fewer means the Bash calls changed nothing (refused, failed).
  if (checkpointed !== turns + 1) throw new Error(`the writer has ${checkpointed} checkpoints, not ${turns + 1}`);

  // The reader: the same turns, a Read each, so no checkpoint after turn 0.
  const readerDir = cloneRepository(path.join(env.workspace, 'reader'));
  startedAt = Date.now();
  const reader = await startIn('reader', readerDir);
  await finished(reader);
  const readerWallMs = Date.now() - startedAt;

  // Forks of the finished writer, one at a time.
  const forkTimings: ForkTiming[] = [];
  for (const fork of forks) forkTimings.push(await timeFork(env.modelServer, writer, fork));
  const worktree = await timeFork(env.modelServer, writer, { ...worktreeFork, worktree: true });
  // Its Bash printed the edited file's last line in its worktree: the line of turn N, not of N + 1.
  const tail = JSON.stringify(JSON.parse(worktree.requests[1]?.rawBody ?? '{}').messages?.at(-1) ?? null);
  const worktreeFilesAsOfTurn = tail.includes(appendedLine(half)) && !tail.includes(appendedLine(half + 1));

  // Rewinds of a running agent: in its Bash after its last append; to the middle, then (after it replayed) with files.
  const rewound = await startIn('rewound', cloneRepository(path.join(env.workspace, 'rewound')));
  await untilWaiting(env.modelServer, rewound.agentId, turns + 1);
  const conversationOnly = await timeRewind(env.modelServer, rewound, half, false);
  await untilWaiting(env.modelServer, rewound.agentId, 2 * turns - half + 2);
  const withFiles = await timeRewind(env.modelServer, rewound, half, true);
  await rewound.stop({ reason: 'bench:rewind measured it' });
  await withTimeout(rewound.result(), 120_000, `${rewound.agentId} to stop`).catch(() => undefined);

  const writerHistory = await historySize(env.temporalClient, writer.agentId);
  const readerHistory = await historySize(env.temporalClient, reader.agentId);
  const forkHistory = await historySize(env.temporalClient, forks.find((fork) => fork.turn === turns)!.agentId);
  const writerTurnMs = turnTimes(writer.agentId);
  // The rewound agent's turns before its first rewind, and after it (from the second request on, up to the second).
  const rewoundTurnMs = {
    before: turnTimes(rewound.agentId, 0, turns + 1),
    after: turnTimes(rewound.agentId, turns + 1, 2 * turns - half + 2),
  };
  const readerTurnMs = turnTimes(reader.agentId);
  const storedBytes = objectsAfter.bytes - objectsBefore.bytes;
  const atHalf = forkTimings.filter((timing) => timing.turn === half);
  const atEnd = forkTimings.filter((timing) => timing.turn === turns);

  const endToEnd = {
    turns,
    model,
    bashSandbox: sandboxMissing ? `off: ${sandboxMissing}` : 'on',
    writer: {
      wallMs: writerWallMs,
      turnMsP50: median(writerTurnMs),
      turnMsP95: ms(percentile(writerTurnMs, 95)),
      boundaries: writerTurns.boundaries.length,
      checkpoints: checkpointed,
      checkpointRefsKept: refCount(writerDir, checkpointRefPrefix),
      newObjectBytes: storedBytes,
      newObjectDiskBytes: objectsAfter.disk - objectsBefore.disk,
      newObjectBytesPerCheckpoint: Math.round(storedBytes / Math.max(1, checkpointed)),
      history: writerHistory,
    },
    reader: {
      wallMs: readerWallMs,
      turnMsP50: median(readerTurnMs),
      turnMsP95: ms(percentile(readerTurnMs, 95)),
      history: readerHistory,
    },
    historyWithOverWithout: {
      events: Number((writerHistory.events / readerHistory.events).toFixed(3)),
      bytes: Number((writerHistory.bytes / readerHistory.bytes).toFixed(3)),
    },
    forkAtHalf: { turn: half, runs: atHalf.length, ...summary(atHalf) },
    forkAtEnd: { turn: turns, runs: atEnd.length, ...summary(atEnd), history: forkHistory },
    forkWithWorktree: {
      turn: half,
      returnedMs: worktree.returnedMs,
      firstRequestMs: worktree.firstRequestMs,
      resultMs: worktree.resultMs,
      filesAsOfTurn: worktreeFilesAsOfTurn,
      cacheReadInputTokens: worktree.cacheReadInputTokens,
      inputTokens: worktree.inputTokens,
    },
    rewindInPlace: {
      conversationOnly,
      withFiles,
      turnMsP50Before: median(rewoundTurnMs.before),
      turnMsP50After: median(rewoundTurnMs.after),
      turnMsP95After: ms(percentile(rewoundTurnMs.after, 95)),
    },
    forkTimings: forkTimings.map(({ requests: _requests, ...timing }) => timing),
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };

  const row = (label: string, value: string | number) => console.log(`${label.padEnd(76)}${String(value)}`);
  const cp = checkpoints.figures;
  console.log(
    `rewind benchmark, part 1: checkpoints of a shared clone of this repository (${cp.repositoryFiles} files), load average ${cp.loadAverage}`,
  );
  const columns = (...cells: (string | number)[]) =>
    `${String(cells[0]).padEnd(76)}${cells
      .slice(1)
      .map((cell, index) => String(cell).padStart([5, 11, 9, 14][index]!))
      .join('')}`;
  console.log(columns('operation', 'runs', 'median ms', 'p95 ms', 'git CPU ms'));
  for (const { measure, runs, medianMs, p95Ms, gitCpuMsMean } of checkpoints.rows)
    console.log(columns(measure, runs, medianMs, p95Ms, gitCpuMsMean));
  row(
    'new objects per one-file turn: bytes (on disk)',
    `${cp.oneFileTurnObjectBytesP50} (${cp.oneFileTurnDiskBytesP50})`,
  );
  row("an agent's private index (bytes)", cp.privateIndexBytes);
  console.log(
    `\nrewind benchmark, part 2: the real server, ${turns}-turn agents (${model}, scripted), each in its own shared clone`,
  );
  const w = endToEnd.writer;
  row(`writer (Bash append a turn): wall ms / turn p50 / p95`, `${w.wallMs} / ${w.turnMsP50} / ${w.turnMsP95}`);
  row(
    `reader (Read a turn): wall ms / turn p50 / p95`,
    `${readerWallMs} / ${endToEnd.reader.turnMsP50} / ${endToEnd.reader.turnMsP95}`,
  );
  row(
    'writer: boundaries / checkpoints / checkpoint refs kept',
    `${w.boundaries} / ${w.checkpoints} / ${w.checkpointRefsKept}`,
  );
  row(
    'writer: new objects bytes (on disk) / per checkpoint',
    `${storedBytes} (${w.newObjectDiskBytes}) / ${w.newObjectBytesPerCheckpoint}`,
  );
  row(
    'history with checkpoints (writer): events / bytes',
    `${writerHistory.events} / ${writerHistory.bytes} (${writerHistory.runs} run)`,
  );
  row(
    'history without (reader): events / bytes',
    `${readerHistory.events} / ${readerHistory.bytes} (${readerHistory.runs} run)`,
  );
  row(
    '  of it checkpoint markers: count / bytes',
    `${writerHistory.checkpointMarkers} / ${writerHistory.checkpointMarkerBytes}`,
  );
  for (const [label, figures] of [
    [`fork at turn ${half}`, endToEnd.forkAtHalf],
    [`fork at turn ${turns}`, endToEnd.forkAtEnd],
  ] as const) {
    row(
      `${label} (${figures.runs} runs, p50): returned / first request / result ms`,
      `${figures.returnedMsP50} / ${figures.firstRequestMsP50} / ${figures.resultMsP50}`,
    );
    row(
      `${label}: first request cache read / write / input tokens`,
      `${figures.cacheReadInputTokens} / ${figures.cacheCreationInputTokens} / ${figures.inputTokens}${figures.prefixIdentical ? ' (prefix identical)' : ' (PREFIX DIFFERS)'}`,
    );
  }
  row(
    `fork at turn ${half} with --worktree: returned / first request / result ms`,
    `${worktree.returnedMs} / ${worktree.firstRequestMs} / ${worktree.resultMs}${worktreeFilesAsOfTurn ? ' (files as of the turn)' : ' (FILES WRONG)'}`,
  );
  row(`fork at turn ${turns}: its history events / bytes`, `${forkHistory.events} / ${forkHistory.bytes}`);
  row(
    `rewind in place to turn ${half}: answered / next request ms (dropped)`,
    `${conversationOnly.answeredMs} / ${conversationOnly.nextRequestMs} (${conversationOnly.droppedTurns})`,
  );
  row(
    `rewind in place to turn ${half} with files: answered / next request ms`,
    `${withFiles.answeredMs} / ${withFiles.nextRequestMs} (${withFiles.restoredFiles} file restored)`,
  );
  row(
    'rewound agent: turn p50 ms before its first rewind / after it (p95)',
    `${endToEnd.rewindInPlace.turnMsP50Before} / ${endToEnd.rewindInPlace.turnMsP50After} (${endToEnd.rewindInPlace.turnMsP95After})`,
  );
  console.log(
    'Fork times run from the fork() call; "first request" is its arrival at the model server. Each rewind came while the agent ran a Bash, ' +
      `so its time includes cancelling that command. Load average ${endToEnd.loadAverage} on this machine's cores.` +
      (sandboxMissing ? ` Bash ran unconfined (SUBAGENTS_SANDBOX=off): ${sandboxMissing}.` : ''),
  );
  console.log(JSON.stringify({ checkpoints: cp, endToEnd }));
} catch (error) {
  console.error(
    `bench:rewind did not complete: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exitCode = 1;
} finally {
  await env.close();
}
