// `subagents cluster up|down|status`: a production-shaped Temporal on this machine, idempotent (docs/operations.md).
import path from 'node:path';
import { rmSync } from 'node:fs';
import { ensureTemporalCli, projectRoot } from '../dev/temporal-cli';
import { freePort, temporalAnswers } from '../dev/dev-server';
import { defaultNamespace, defaultTaskQueue } from '../shared/protocol/config';
import { runSchemaSteps, runSetupSteps } from './compose-steps';
import { ensurePostgres, ensureServerBinaries, findPostgres } from './install';
import { clusterDir, clusterPaths, type ClusterPaths } from './paths';
import { initPostgres, postgresHome, postgresReady, removePostgresData, startPostgres, stopPostgres } from './postgres';
import { pidAlive, spawnDetached, stopProcessGroup } from './processes';
import { newState, readState, writeState, type ClusterState } from './state';
import { frontendAddress, serverLogFile, startTemporalServer, stopTemporalServer } from './temporal-server';
import { clusterWorkerIds, startWorker } from './workers';
import { waitForModelServer } from './model-server';

type Log = (line: string) => void;

export interface ClusterUpOptions {
  /** Worker processes (default 2). */
  workers?: number;
  /** Messages API the workers call; default ANTHROPIC_BASE_URL, else the real API with ANTHROPIC_API_KEY, else a demo model server started here. */
  modelUrl?: string;
  log?: Log;
  env?: NodeJS.ProcessEnv;
}

/** What a running cluster offers its users. */
export interface ClusterInfo {
  address: string;
  namespace: string;
  taskQueue: string;
  postgres: string;
  workers: { id: string; pid: number; root: string }[];
  modelUrl: string;
  dir: string;
}

const realApi = '';

function modelUrlFor(options: ClusterUpOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (options.modelUrl !== undefined) return options.modelUrl;
  if (env.ANTHROPIC_BASE_URL) return env.ANTHROPIC_BASE_URL;
  if (env.ANTHROPIC_API_KEY) return realApi;
  return undefined; // a demo model server of our own
}

/** Starts whatever of the cluster is not running; returns where it is. */
export async function clusterUp(options: ClusterUpOptions = {}): Promise<ClusterInfo> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const workerCount = options.workers ?? 2;
  if (!Number.isInteger(workerCount) || workerCount < 1 || workerCount > 16)
    throw new Error(`workers must be a whole number from 1 to 16 (got ${workerCount}).`);
  const paths = clusterPaths(clusterDir(env));
  const postgresBin = ensurePostgres(log);
  ensureServerBinaries(log);
  const cliDir = path.dirname(ensureTemporalCli(log));
  const state =
    readState(paths) ??
    (await newState(env.TEMPORAL_NAMESPACE || defaultNamespace, env.SUBAGENTS_TASK_QUEUE || defaultTaskQueue));
  writeState(paths, state);
  const startedHere: (() => Promise<void>)[] = [];
  try {
    const postgres = { bin: postgresBin, paths, port: state.postgresPort, password: state.password };
    if (!postgresReady(postgres)) {
      initPostgres(postgres);
      await startPostgres(postgres);
      startedHere.push(async () => stopPostgres(postgres));
      log(`PostgreSQL on 127.0.0.1:${state.postgresPort} (data ${postgresHome(paths).data})`);
    }
    runSchemaSteps({ postgresPort: state.postgresPort, password: state.password, cliDir });
    if (!pidAlive(state.server?.pid) || !(await temporalAnswers(frontendAddress(state)))) {
      await stopTemporalServer(state.server?.pid);
      state.server = { pid: await startTemporalServer(paths, state) };
      writeState(paths, state);
      const pid = state.server.pid;
      startedHere.push(() => stopTemporalServer(pid));
      log(`Temporal server ${frontendAddress(state)} (log ${serverLogFile(paths)})`);
    }
    runSetupSteps({ address: frontendAddress(state), namespace: state.namespace, cliDir });
    const modelUrl = modelUrlFor(options, env) ?? (await ensureDemoModelServer(paths, state, startedHere));
    await ensureWorkers(paths, state, clusterWorkerIds(workerCount), modelUrl, startedHere, log);
  } catch (error) {
    for (const stop of startedHere.reverse()) await stop().catch(() => undefined);
    writeState(paths, {
      ...state,
      workers: state.workers.filter((worker) => pidAlive(worker.pid)),
      ...(pidAlive(state.server?.pid) ? {} : { server: undefined }),
    });
    throw error;
  }
  return describe(paths, state);
}

async function ensureDemoModelServer(
  paths: ClusterPaths,
  state: ClusterState,
  startedHere: (() => Promise<void>)[],
): Promise<string> {
  if (state.modelServer && pidAlive(state.modelServer.pid)) return state.modelServer.url;
  const port = await freePort();
  const pid = spawnDetached(
    process.execPath,
    [path.join(projectRoot, 'bin', 'subagents.js'), 'model-server', '--port', String(port), '--demo'],
    {
      env: process.env,
      logFile: path.join(paths.logs, 'model-server.log'),
    },
  );
  const url = `http://127.0.0.1:${port}`;
  state.modelServer = { pid, url };
  writeState(paths, state);
  startedHere.push(() => stopProcessGroup(pid));
  await waitForModelServer(url, () => pidAlive(pid));
  return url;
}

async function ensureWorkers(
  paths: ClusterPaths,
  state: ClusterState,
  ids: string[],
  modelUrl: string,
  startedHere: (() => Promise<void>)[],
  log: Log,
): Promise<void> {
  for (const extra of state.workers.filter((worker) => !ids.includes(worker.id))) await stopProcessGroup(extra.pid);
  state.workers = state.workers.filter((worker) => ids.includes(worker.id));
  const missing = ids.filter((id) => {
    const current = state.workers.find((worker) => worker.id === id);
    return !(current && pidAlive(current.pid) && current.modelUrl === modelUrl);
  });
  await Promise.all(
    state.workers.filter((worker) => missing.includes(worker.id)).map((worker) => stopProcessGroup(worker.pid)),
  );
  // Started side by side: each spends most of its start-up bundling the workflow code.
  const started = await Promise.allSettled(missing.map((id) => startWorker(paths, state, id, modelUrl)));
  for (const outcome of started) {
    if (outcome.status !== 'fulfilled') continue;
    const worker = outcome.value;
    state.workers = [...state.workers.filter((candidate) => candidate.id !== worker.id), worker].sort((left, right) =>
      left.id.localeCompare(right.id),
    );
    startedHere.push(() => stopProcessGroup(worker.pid));
    log(`worker ${worker.id} (pid ${worker.pid}, workspace root ${worker.root}, log ${worker.logFile})`);
  }
  writeState(paths, state);
  const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

function describe(paths: ClusterPaths, state: ClusterState): ClusterInfo {
  return {
    address: frontendAddress(state),
    namespace: state.namespace,
    taskQueue: state.taskQueue,
    postgres: `127.0.0.1:${state.postgresPort}`,
    workers: state.workers.map(({ id, pid, root }) => ({ id, pid, root })),
    modelUrl: state.workers[0]?.modelUrl || 'https://api.anthropic.com',
    dir: paths.dir,
  };
}

/** Stops everything `cluster up` started (workers first, PostgreSQL last); `purge` also deletes its data. */
export async function clusterDown(
  options: { purge?: boolean; env?: NodeJS.ProcessEnv; log?: Log } = {},
): Promise<void> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const paths = clusterPaths(clusterDir(env));
  const state = readState(paths);
  if (state) {
    await Promise.all(state.workers.map((worker) => stopProcessGroup(worker.pid)));
    await stopProcessGroup(state.modelServer?.pid);
    await stopTemporalServer(state.server?.pid);
    const bin = findPostgres();
    if (bin) stopPostgres({ bin, paths });
    writeState(paths, { ...state, workers: [], server: undefined, modelServer: undefined });
    log(`cluster stopped (${paths.dir})`);
  }
  if (options.purge) {
    removePostgresData(paths);
    rmSync(paths.dir, { recursive: true, force: true });
    log(`removed ${paths.dir}`);
  }
}

/** The cluster's parts and whether each runs. */
export async function clusterStatus(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ running: boolean; info?: ClusterInfo; parts: Record<string, boolean> }> {
  const paths = clusterPaths(clusterDir(env));
  const state = readState(paths);
  if (!state) return { running: false, parts: {} };
  const bin = (await import('./install')).findPostgres();
  const parts: Record<string, boolean> = {
    postgres: bin ? postgresReady({ bin, port: state.postgresPort }) : false,
    server: pidAlive(state.server?.pid) && (await temporalAnswers(frontendAddress(state))),
    ...Object.fromEntries(state.workers.map((worker) => [worker.id, pidAlive(worker.pid)])),
  };
  if (state.modelServer) parts['model-server'] = pidAlive(state.modelServer.pid);
  return {
    running: Object.values(parts).every(Boolean) && state.workers.length > 0,
    info: describe(paths, state),
    parts,
  };
}
