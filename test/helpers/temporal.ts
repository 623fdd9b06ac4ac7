import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker, type WorkerOptions } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { WebToolSettings } from '../../src/activities/web';
import { createAgentWorker, createWorkspaceWorker, type WorkerWorkspace } from '../../src/worker/worker';

let runtimeInstalled = false;

/** Keeps worker logs to warnings so test output stays readable. */
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed in this process.
  }
}

/** A unique task queue per test, so tests never steal each other's tasks. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Connections to the run's shared dev server. */
export interface TestTemporal {
  address: string;
  client: Client;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

export async function connectTestTemporal(): Promise<TestTemporal> {
  quietRuntime();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    address,
    client: new Client({ connection, namespace: 'default' }),
    nativeConnection,
    close: async () => {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

let emptyHome: string | undefined;

/** An empty home directory for this test process: tests never read the real ~/.claude (CLAUDE.md, agents). */
export function testHomeDir(): string {
  emptyHome ??= mkdtempSync(path.join(os.tmpdir(), 'subagents-home-'));
  return emptyHome;
}

/** What every test worker shares: the test server's connections, its queue, and the model server's SDK client. */
function testWorkerConnection(temporal: TestTemporal, options: { taskQueue: string; modelBaseUrl: string }) {
  return {
    connection: temporal.nativeConnection,
    client: temporal.client,
    namespace: 'default',
    taskQueue: options.taskQueue,
    anthropic: new Anthropic({ apiKey: 'test-key', baseURL: options.modelBaseUrl, maxRetries: 0 }),
  };
}

/** A worker on the shared server using the run's workflow bundle and a model server URL. */
export async function createTestWorker(
  temporal: TestTemporal,
  options: {
    taskQueue: string;
    modelBaseUrl: string;
    toolResultsDir?: string;
    homeDir?: string;
    workerOptions?: Partial<WorkerOptions>;
    workspace?: WorkerWorkspace;
    web?: WebToolSettings;
  },
): Promise<Worker> {
  return createAgentWorker({
    ...testWorkerConnection(temporal, options),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    toolResultsDir: options.toolResultsDir,
    homeDir: options.homeDir ?? testHomeDir(),
    workerOptions: options.workerOptions,
    ...(options.workspace ? { workspace: options.workspace } : {}),
    // Tests never read the worker's environment for the web tools: WebFetch reaches no private address unless a test allows it.
    web: options.web ?? {},
  });
}

/** The second worker of a "machine" with a worker id: only the workspace activities, on `<taskQueue>@<workerId>`. */
export async function createTestWorkspaceWorker(
  temporal: TestTemporal,
  options: { taskQueue: string; modelBaseUrl: string; workspace: { workerId: string; root?: string } },
): Promise<Worker> {
  return createWorkspaceWorker({
    ...testWorkerConnection(temporal, options),
    homeDir: testHomeDir(),
    workspace: options.workspace,
    web: {},
  });
}
