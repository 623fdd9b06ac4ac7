// The cluster's workers, each with its own id and workspace root as if on its own machine (docs/operations.md).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { projectRoot } from '../dev/temporal-cli';
import { workspaceTaskQueue } from '../shared/workspace/workspace-routing';
import type { ClusterPaths } from './paths';
import { pidAlive, spawnDetached, stopProcessGroup } from './processes';
import { frontendAddress } from './temporal-server';
import type { ClusterState, WorkerRecord } from './state';

/** Worker ids of a cluster of `count` workers: worker-1, worker-2, ... */
export const clusterWorkerIds = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => `worker-${index + 1}`);

/** Starts one worker process and waits until it polls its own task queue. */
export async function startWorker(
  paths: ClusterPaths,
  state: ClusterState,
  id: string,
  modelUrl: string,
): Promise<WorkerRecord> {
  const root = path.join(paths.workspaces, id);
  mkdirSync(root, { recursive: true });
  const logFile = path.join(paths.logs, `${id}.log`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: frontendAddress(state),
    TEMPORAL_NAMESPACE: state.namespace,
    SUBAGENTS_TASK_QUEUE: state.taskQueue,
    SUBAGENTS_WORKER_ID: id,
    SUBAGENTS_WORKSPACE_ROOT: root,
  };
  // An empty modelUrl means the real API (ANTHROPIC_API_KEY); otherwise the Messages API at modelUrl.
  if (modelUrl) {
    env.ANTHROPIC_BASE_URL = modelUrl;
    delete env.ANTHROPIC_API_KEY;
  } else {
    delete env.ANTHROPIC_BASE_URL;
  }
  delete env.TEMPORAL_PROFILE;
  const pid = spawnDetached(process.execPath, [path.join(projectRoot, 'bin', 'subagents.js'), 'worker'], {
    env,
    logFile,
    cwd: root,
  });
  try {
    await waitForPoller(state, `${id} ${pid}@`, () => pidAlive(pid), logFile);
  } catch (error) {
    await stopProcessGroup(pid);
    throw error;
  }
  return { id, pid, root, modelUrl, logFile };
}

/** Waits until the worker whose identity starts with `identityPrefix` (`<id> <pid>@`) polls its workspace task queue (and so the shared one). */
export async function waitForPoller(
  state: ClusterState,
  identityPrefix: string,
  alive: () => boolean,
  logFile: string,
  timeoutMs = 120_000,
): Promise<void> {
  const id = identityPrefix.split(' ')[0]!;
  const connection = await Connection.connect({ address: frontendAddress(state) });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!alive()) throw new Error(`Worker ${id} exited while starting (see ${logFile}).`);
      const description = await connection.workflowService
        .describeTaskQueue({
          namespace: state.namespace,
          taskQueue: {
            name: workspaceTaskQueue(state.taskQueue, id),
            kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
          },
          taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        })
        .catch(() => undefined);
      if (description?.pollers?.some((poller) => poller.identity?.startsWith(identityPrefix))) return;
      if (Date.now() > deadline)
        throw new Error(`Worker ${id} did not poll its task queue within ${timeoutMs / 1000} s (see ${logFile}).`);
      await sleep(300);
    }
  } finally {
    await connection.close();
  }
}
