// The cluster suite's world: `cluster up` with two workers pointed at this process's scripted model
// server, a client with the workers' payload codec, and the disruptions (worker SIGKILL and restart,
// Temporal server restart) done on the processes `cluster up` recorded.
import { Client, Connection } from '@temporalio/client';
import { clusterUp, type ClusterInfo } from '../../src/cluster/cluster';
import { clusterDir, clusterPaths, type ClusterPaths } from '../../src/cluster/paths';
import { killProcessGroup, pidAlive } from '../../src/cluster/processes';
import { readState, writeState, type ClusterState } from '../../src/cluster/state';
import { startTemporalServer, stopTemporalServer } from '../../src/cluster/temporal-server';
import { startWorker } from '../../src/cluster/workers';
import { createDataConverter } from '../../src/codec/data-converter';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import type { Scenario } from '../../src/model-server/scenario-schema';

export interface ClusterEnv {
  info: ClusterInfo;
  paths: ClusterPaths;
  temporal: Client;
  modelServer: ModelServer;
  /** Every scripted agent of the suite (checks add theirs before they start). */
  addAgents(entries: Scenario['agents']): void;
  rootOf(workerId: string): string;
  state(): ClusterState;
  /** SIGKILL of a worker process: no graceful shutdown. Returns when it is gone. */
  killWorker(workerId: string): Promise<void>;
  /** A new process for the worker id (same workspace root and task queues). */
  startWorker(workerId: string): Promise<number>;
  /** Temporal server stopped (SIGTERM) and started again on the same ports and database; returns the outage in ms. */
  restartServer(pauseMs: number): Promise<number>;
  close(): Promise<void>;
}

export async function createClusterEnv(log: (line: string) => void): Promise<ClusterEnv> {
  const scenario: Scenario = { agents: [] };
  const modelServer = await startModelServer({ port: 0, behaviour: { kind: 'scripted', scenario } });
  const paths = clusterPaths(clusterDir());
  let info: ClusterInfo;
  try {
    info = await clusterUp({ workers: 2, modelUrl: modelServer.url, log });
  } catch (error) {
    await modelServer.close();
    throw error;
  }
  const connection = await Connection.connect({ address: info.address });
  const temporal = new Client({ connection, namespace: info.namespace, dataConverter: createDataConverter() });
  const state = (): ClusterState => {
    const current = readState(paths);
    if (!current) throw new Error(`no cluster state in ${paths.state}`);
    return current;
  };
  const worker = (workerId: string) => {
    const record = state().workers.find((candidate) => candidate.id === workerId);
    if (!record) throw new Error(`the cluster has no worker ${workerId}`);
    return record;
  };
  return {
    info,
    paths,
    temporal,
    modelServer,
    addAgents(entries) {
      scenario.agents.push(...entries);
      modelServer.setBehaviour({ kind: 'scripted', scenario });
    },
    rootOf: (workerId) => worker(workerId).root,
    state,
    async killWorker(workerId) {
      await killProcessGroup(worker(workerId).pid);
    },
    async startWorker(workerId) {
      const current = state();
      const record = await startWorker(paths, current, workerId, modelServer.url);
      writeState(paths, {
        ...current,
        workers: [...current.workers.filter((candidate) => candidate.id !== workerId), record],
      });
      return record.pid;
    },
    async restartServer(pauseMs) {
      const current = state();
      const stoppedAt = Date.now();
      await stopTemporalServer(current.server?.pid);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const pid = await startTemporalServer(paths, current);
      writeState(paths, { ...state(), server: { pid } });
      return Date.now() - stoppedAt;
    },
    async close() {
      await connection.close().catch(() => undefined);
      await modelServer.close().catch(() => undefined);
    },
  };
}

/** Workers whose process died without being asked (e.g. while the server was down). */
export function deadWorkers(env: ClusterEnv): string[] {
  return env
    .state()
    .workers.filter((worker) => !pidAlive(worker.pid))
    .map((worker) => worker.id);
}
