// npm run bench:cli — how fast `subagents` answers: --help, start --help, ls and status <id> against a dev server, run as
// a user runs them (a fresh `node bin/subagents.js` each time), compiled (dist/) and from the sources through tsx.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, isBuildCurrent } from '../scripts/build.mjs';
import { createBenchEnv, percentile } from './helpers/bench-env';
import { ms } from './helpers/wait';

const root = path.join(import.meta.dirname, '..');
const bin = path.join(root, 'bin', 'subagents.js');
const runs = Number(process.env.BENCH_CLI_RUNS ?? 5);
const tsxRuns = Number(process.env.BENCH_CLI_TSX_RUNS ?? 3);
const goals: Record<string, number> = { '--help': 500, status: 1000 };

const builtAt = Date.now();
const built = ensureBuilt(root);
if (!built.ok) throw new Error(`bench:cli needs dist/: ${built.reason}`);
const buildMs = Date.now() - builtAt;

const env = await createBenchEnv({ kind: 'echo' });
try {
  const agent = await env.client.startAgent({
    prompt: 'bench:cli',
    cwd: env.workspace,
    model: 'claude-test-tiny',
    permissionMode: 'bypassPermissions',
  });
  await agent.result();
  const cases = [
    { label: '--help', argv: ['--help'] },
    { label: 'start --help', argv: ['start', '--help'] },
    { label: 'ls', argv: ['ls'] },
    { label: 'status', argv: ['status', agent.agentId] },
  ];
  const modes: { label: string; env: Record<string, string>; runs: number }[] = [
    { label: 'compiled', env: {}, runs },
    { label: 'tsx', env: { SUBAGENTS_FROM_SOURCES: '1' }, runs: tsxRuns },
  ];

  /** One fresh CLI process: its wall time; a failing command fails the bench rather than timing an error. */
  const timeOnce = async (argv: string[], extraEnv: Record<string, string>): Promise<number> => {
    const started = performance.now();
    const cliEnv = { ...process.env, TEMPORAL_ADDRESS: env.server.address, SUBAGENTS_TASK_QUEUE: 'bench', ...extraEnv };
    const { stdout } = await promisify(execFile)(process.execPath, [bin, ...argv], {
      cwd: env.workspace,
      env: cliEnv,
      encoding: 'utf8',
    });
    const elapsed = performance.now() - started;
    if (argv[0] === 'status' && !stdout.includes(agent.agentId)) throw new Error(`status printed no agent:\n${stdout}`);
    return elapsed;
  };

  let rebuilds = 0;
  const medians: Record<string, Record<string, number>> = {};
  const all: Record<string, Record<string, number[]>> = {};
  for (const mode of modes) {
    medians[mode.label] = {};
    all[mode.label] = {};
    for (const { label, argv } of cases) {
      const times: number[] = [];
      for (let run = 0; run < mode.runs; run++) {
        // Sources edited meanwhile (others at work in the tree) are compiled here, not inside a timed call.
        if (mode.label === 'compiled' && !isBuildCurrent(root)) {
          rebuilds++;
          ensureBuilt(root);
        }
        times.push(await timeOnce(argv, mode.env));
      }
      all[mode.label]![label] = times.map(ms);
      medians[mode.label]![label] = ms(percentile(times, 50));
    }
  }

  console.log(`subagents, a fresh process each call (median of ${runs} compiled, ${tsxRuns} tsx; ms)`);
  console.log(
    `${'command'.padEnd(16)}${'compiled'.padStart(10)}${'tsx'.padStart(10)}${'goal'.padStart(8)}   runs (compiled)`,
  );
  for (const { label } of cases) {
    const goal = goals[label];
    console.log(
      `${label.padEnd(16)}${String(medians.compiled![label]).padStart(10)}${String(medians.tsx![label]).padStart(10)}${(goal ? `≤${goal}` : '').padStart(8)}   ${all.compiled![label]!.join(' ')}`,
    );
  }
  console.log(
    `${buildMs > 1000 ? `dist/ was built first: ${ms(buildMs / 1000)} s` : 'dist/ was current'}; rebuilt between runs (sources edited meanwhile): ${rebuilds}`,
  );
  const goalsMet = Object.entries(goals).every(([label, goal]) => (medians.compiled![label] ?? Infinity) <= goal);
  console.log(
    JSON.stringify({ compiledMs: medians.compiled, tsxMs: medians.tsx, goalsMet, runs, tsxRuns, buildMs, rebuilds }),
  );
} catch (error) {
  console.error(`bench:cli did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await env.close();
}
