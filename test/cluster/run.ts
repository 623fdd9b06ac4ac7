// `npm run test:cluster`: the runtime on a production-shaped Temporal — the server on PostgreSQL
// (built from its Go module), two workers as separate processes with separate workspace roots —
// through a real subset: trees with forks and worktrees placed on each worker, approvals,
// visibility by search attribute, a stop cascade, a worker SIGKILL and restart, a worker that never
// comes, a server restart, and replay of the histories fetched from PostgreSQL. See docs/operations.md.
//
// stdout: a table, then LAST one JSON line {"server":"postgresql","workers":2,"passed":N,"failed":N,...}.
// stderr: progress. Everything `cluster up` started is stopped at the end (`cluster down`), also on failure.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { clusterDown } from '../../src/cluster/cluster';
import { seconds, withTimeout } from '../chaos/util';
import { type Check, type SuiteContext } from './context';
import {
  stopCascadeCheck,
  serverRestartCheck,
  workerGoneCheck,
  workerKillCheck,
  workerRestartCheck,
} from './checks-disruptions';
import { replayCheck } from './checks-replay';
import { rollingUpgradeCheck } from './checks-upgrade';
import { approvalsCheck, placementCheck, visibilityCheck } from './checks-trees';
import { createClusterEnv, type ClusterEnv } from './env';
import { sizingFigures } from './sizing';

Runtime.install({ logger: new DefaultLogger('WARN') }); // the replay check's worker: warnings only
const startedAt = Date.now();
const log = (line: string) =>
  process.stderr.write(`[cluster ${seconds(Date.now() - startedAt).padStart(6)}] ${line}\n`);
const checkTimeoutMs = 8 * 60_000;

const checks: Check[] = [
  placementCheck,
  approvalsCheck,
  visibilityCheck,
  stopCascadeCheck,
  workerKillCheck,
  workerRestartCheck,
  workerGoneCheck,
  serverRestartCheck,
  rollingUpgradeCheck,
  replayCheck,
];

interface Outcome {
  name: string;
  passed: boolean;
  detail: string;
  durationMs: number;
}

let env: ClusterEnv | undefined;
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await env?.close().catch(() => undefined);
    await clusterDown({ log }).catch((error: unknown) => log(`cluster down failed: ${String(error)}`));
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the cluster`);
    void cleanUp().finally(() => process.exit(130));
  });
}

const outcomes: Outcome[] = [];
const figures: Record<string, number | string> = {};
try {
  log('cluster up: PostgreSQL, Temporal server, 2 workers (builds what is missing)');
  env = await createClusterEnv(log);
  figures.clusterUpMs = Date.now() - startedAt;
  log(`cluster up after ${seconds(figures.clusterUpMs)}: ${env.info.address}, PostgreSQL ${env.info.postgres}`);
  const context: SuiteContext = { env, tag: Date.now().toString(36), log, roots: { placement: [], all: [] }, figures };
  // CLUSTER_CHECKS=kill,replay runs only the checks whose names contain one of the words (for debugging one).
  const only = (process.env.CLUSTER_CHECKS ?? '')
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);
  for (const check of checks.filter(
    (candidate) => only.length === 0 || only.some((word) => candidate.name.toLowerCase().includes(word)),
  )) {
    const began = Date.now();
    log(`check: ${check.name}`);
    try {
      const detail = await withTimeout(check.run(context), checkTimeoutMs, check.name);
      outcomes.push({ name: check.name, passed: true, detail, durationMs: Date.now() - began });
      log(`  passed in ${seconds(Date.now() - began)}: ${detail}`);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      outcomes.push({ name: check.name, passed: false, detail, durationMs: Date.now() - began });
      log(`  FAILED in ${seconds(Date.now() - began)}: ${detail}`);
    }
  }
  Object.assign(figures, sizingFigures(env));
} catch (error) {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  outcomes.push({ name: 'cluster up', passed: false, detail, durationMs: Date.now() - startedAt });
  log(`the cluster did not come up: ${detail}`);
} finally {
  await cleanUp();
}

const width = Math.max(...outcomes.map((outcome) => outcome.name.length));
console.log(`${'check'.padEnd(width)}  result  time    detail`);
for (const outcome of outcomes) {
  console.log(
    `${outcome.name.padEnd(width)}  ${outcome.passed ? 'passed' : 'FAILED'}  ${seconds(outcome.durationMs).padStart(6)}  ${outcome.detail}`,
  );
}
const passed = outcomes.filter((outcome) => outcome.passed).length;
const failed = outcomes.length - passed + (outcomes.length === 0 ? 1 : 0);
console.log(
  JSON.stringify({
    server: 'postgresql',
    workers: 2,
    passed,
    failed,
    ...figures,
    durationMs: Date.now() - startedAt,
  }),
);
process.exit(failed === 0 ? 0 : 1);
