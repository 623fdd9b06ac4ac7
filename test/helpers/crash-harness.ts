/** What a worker-crash test needs: the dev server, a model server, and worker processes it starts and kills. */
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SubagentsClient, type StartAgentOptions } from '../../src/client/client';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { startChildWorker, type ChildWorker } from './child-worker';
import { connectTestTemporal, uniqueTaskQueue, type TestTemporal } from './temporal';

/** A file's crash-test parts; usable inside tests only. */
export interface CrashHarness {
  readonly temporal: TestTemporal;
  readonly modelServer: ModelServer;
  /** Every worker process started so far, in order; all are killed after the file's tests. */
  readonly workers: ChildWorker[];
  /** A fresh workspace, a unique queue and a client on it, for one test. */
  prepare(name: string): { workspace: string; taskQueue: string; client: SubagentsClient };
  /** Starts one more worker process on the queue (it joins `workers`). */
  startWorker(taskQueue: string): Promise<ChildWorker>;
}

/** Registers the file's set-up and tear-down; the parts exist once beforeAll ran. */
export function useCrashHarness(): CrashHarness {
  let temporal: TestTemporal | undefined;
  let modelServer: ModelServer | undefined;
  const workers: ChildWorker[] = [];
  beforeAll(async () => {
    temporal = await connectTestTemporal();
    modelServer = await startModelServer({ port: 0 });
  });
  afterAll(async () => {
    for (const worker of workers) await worker.kill();
    await modelServer?.close();
    await temporal?.close();
  });
  const started = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error('The crash harness starts in beforeAll: use it inside a test.');
    return part;
  };
  const harness: CrashHarness = {
    get temporal() {
      return started(temporal);
    },
    get modelServer() {
      return started(modelServer);
    },
    workers,
    prepare: (name) => {
      const taskQueue = uniqueTaskQueue(name);
      return {
        workspace: realpathSync(mkdtempSync(path.join(os.tmpdir(), `subagents-${name}-`))),
        taskQueue,
        client: new SubagentsClient(harness.temporal.client, taskQueue),
      };
    },
    startWorker: async (taskQueue) => {
      const worker = await startChildWorker({ taskQueue, modelBaseUrl: harness.modelServer.url });
      workers.push(worker);
      return worker;
    },
  };
  return harness;
}

/** Starts an agent in this workspace on the test model, with no approval prompts. */
export function startUnattended(
  client: SubagentsClient,
  workspace: string,
  options: Pick<StartAgentOptions, 'prompt' | 'limits'>,
): ReturnType<SubagentsClient['startAgent']> {
  return client.startAgent({
    ...options,
    cwd: workspace,
    model: 'claude-test-tiny',
    permissionMode: 'bypassPermissions',
  });
}
