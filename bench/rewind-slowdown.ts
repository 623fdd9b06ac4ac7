// node bench/run.mjs bench/rewind-slowdown.ts — the rewound agent of bench:rewind alone: where a turn's time and CPU go
// before and after an in-place rewind to the middle. Each turn is split by its history (workflow tasks, local
// activities, model call, Bash) and costed in this process's CPU (worker, model server, Bash and git), beside the
// CPU the rest of the machine used meanwhile. BENCH_REWIND_CONTROL=1 runs as many turns straight on without the
// rewind, the same agent's life without it. Found with it (6 December 2026): turns after the rewind cost the same
// CPU as the ones before; bench:rewind's 4x came from its own wait, which copied the model server's log every 20 ms.
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, readFileSync } from 'node:fs';
import { sandboxOptionsFromEnv, sandboxProblem } from '../src/config/sandbox-options';
import { agentHistory } from './helpers/agent-history';
import { createBenchEnv, percentile } from './helpers/bench-env';
import { cloneRepository } from './helpers/git-workspace';
import { rewindScenario } from './helpers/rewind-scenario';
import { arrivedRequests, timeRewind, untilWaiting } from './helpers/rewind-times';
import { splitTurns, summariseTurns } from './helpers/turn-split';
import { withTimeout } from './helpers/wait';

const turns = Number(process.env.BENCH_REWIND_TURNS ?? 100);
const half = Math.floor(turns / 2);
const control = process.env.BENCH_REWIND_CONTROL === '1';
/** The agent's requests in all: `turns` and the one it waits in, then the turns from `half` again and the next wait. */
const lastRequest = 2 * turns - half + (control ? 0 : 2);

/** CPU ticks (10 ms): the machine's busy ones, and this process's with its waited-for children (Bash, git). */
function cpuNow(): { machineBusy: number; own: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const self = readFileSync('/proc/self/stat', 'utf8');
  // utime, stime, cutime, cstime: fields 14-17, the 12th to 15th after the command name's closing parenthesis.
  const own = self
    .slice(self.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map(Number);
  return {
    machineBusy: fields.reduce((sum, value) => sum + value, 0) - idle,
    own: own.reduce((sum, value) => sum + value, 0),
  };
}

const sandboxMissing = await sandboxProblem(sandboxOptionsFromEnv(process.env));
if (sandboxMissing) process.env.SUBAGENTS_SANDBOX = 'off';
const env = await createBenchEnv({
  kind: 'scripted',
  scenario: rewindScenario({
    turns: control ? lastRequest : turns,
    forks: [],
    worktreeFork: { agentId: '-', turn: 0 },
  }),
});
const homeDir = path.join(env.workspace, 'home');
mkdirSync(homeDir);

try {
  const agent = await env.client.startAgent({
    prompt: `bench:rewind-slowdown: ${turns} turns`,
    name: 'rewound',
    agentId: 'rewind-slowdown',
    cwd: cloneRepository(path.join(env.workspace, 'rewound')),
    model: 'claude-sonnet-5',
    permissionMode: 'bypassPermissions',
    maxTurns: turns * 3,
    homeDir,
  });
  // CPU at each of the agent's requests, counted without copying the model server's log.
  const atRequests: ReturnType<typeof cpuNow>[] = [];
  const watch = setInterval(() => {
    if (arrivedRequests(env.modelServer, agent.agentId) > atRequests.length) atRequests.push(cpuNow());
  }, 5);
  await untilWaiting(env.modelServer, agent.agentId, control ? turns : turns + 1);
  const rewind = control ? undefined : await timeRewind(env.modelServer, agent, half, false);
  await untilWaiting(env.modelServer, agent.agentId, lastRequest);
  clearInterval(watch);
  await agent.stop({ reason: 'bench:rewind-slowdown measured it' });
  await withTimeout(agent.result(), 120_000, 'the agent to stop').catch(() => undefined);

  const splits = splitTurns(await agentHistory(env.temporalClient, agent.agentId));
  const perTurn = atRequests.slice(1).map((sample, index) => {
    const own = sample.own - atRequests[index]!.own;
    return { ownCpuMs: own * 10, othersCpuMs: (sample.machineBusy - atRequests[index]!.machineBusy - own) * 10 };
  });
  // Request k to k + 1 is turn k + 1; after the rewind the turns from half + 1 come again.
  const stretches: [string, number, number][] = [
    [`turns 2-${half}`, 1, half],
    [`turns ${half + 1}-${turns}`, half, turns],
    control
      ? [`turns ${turns + 1}-${lastRequest}`, turns, lastRequest - 1]
      : [`turns ${half + 1}-${turns} again, after the rewind`, turns + 1, lastRequest - 1],
  ];
  const mean = (values: number[]) => Math.round(values.reduce((sum, value) => sum + value, 0) / values.length);
  console.log(JSON.stringify({ control, rewind, loadAverage: os.loadavg()[0] }));
  for (const [label, from, to] of stretches) {
    const cpu = perTurn.slice(from, to);
    console.log(
      JSON.stringify({
        ...summariseTurns(label, splits.slice(from, to)),
        ownCpuMsP50: percentile(
          cpu.map((turn) => turn.ownCpuMs),
          50,
        ),
        ownCpuMsMean: mean(cpu.map((turn) => turn.ownCpuMs)),
        othersCpuMsMean: mean(cpu.map((turn) => turn.othersCpuMs)),
      }),
    );
  }
} catch (error) {
  console.error(
    `bench:rewind-slowdown did not complete: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exitCode = 1;
} finally {
  await env.close();
}
