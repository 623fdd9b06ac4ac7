// A worker as a real child process, so tests can SIGKILL it mid-run and start another.
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createAgentWorker, workerVersionFor } from '../../src/worker/worker';
import { adoptIfNoCurrentVersion, versionRequestFromEnv } from '../../src/worker/versioning';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`worker-process needs ${name}`);
  return value;
};

// A warm replacement (test/chaos/worker-slot.ts): its modules loaded now; it connects, creates its
// worker and polls once a line arrives on stdin (until then the server sees nothing of it). Its slot
// gone (stdin closed) before that: nothing to do.
const startSignal =
  process.env.WORKER_START_ON_STDIN === '1'
    ? new Promise((resolve) => {
        process.stdin.once('data', resolve);
        process.stdin.once('end', () => process.exit(0));
      })
    : undefined;

Runtime.install({ logger: new DefaultLogger('WARN') });
const address = required('TEMPORAL_ADDRESS');
const bundlePath = required('WORKFLOW_BUNDLE_PATH');
// A version of a worker deployment when SUBAGENTS_DEPLOYMENT is set (SUBAGENTS_BUILD_ID, else derived from
// the bundle), as `subagents worker --deployment` runs (docs/operations.md, "Upgrades").
const versionRequest = versionRequestFromEnv(process.env);
const version = versionRequest.deploymentName
  ? workerVersionFor(versionRequest.deploymentName, versionRequest.buildId, readFileSync(bundlePath, 'utf8'))
  : undefined;

/** Connects and creates the worker; while the server is down (a chaos restart), tries again for up to 2 minutes. */
async function createWorker() {
  const deadline = Date.now() + 120_000;
  for (;;) {
    let nativeConnection: NativeConnection | undefined;
    let connection: Connection | undefined;
    try {
      nativeConnection = await NativeConnection.connect({ address });
      connection = await Connection.connect({ address });
      const client = new Client({ connection, namespace: 'default' });
      const worker = await createAgentWorker({
        connection: nativeConnection,
        client,
        namespace: 'default',
        taskQueue: required('SUBAGENTS_TASK_QUEUE'),
        anthropic: new Anthropic({ apiKey: 'test-key', baseURL: required('ANTHROPIC_BASE_URL'), maxRetries: 0 }),
        workflowBundle: { codePath: bundlePath },
        ...(version ? { version } : {}),
        // Never the real ~/.claude: an empty home of its own.
        homeDir: mkdtempSync(path.join(os.tmpdir(), 'subagents-home-')),
        workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
      });
      return { worker, client };
    } catch (error) {
      await nativeConnection?.close().catch(() => undefined);
      await connection?.close().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      process.stderr.write(
        `worker-process: not connected yet (${error instanceof Error ? error.message : String(error)}), trying again\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

if (startSignal) {
  process.stdout.write('worker-loaded\n');
  await startSignal;
}
const { worker, client } = await createWorker();
const running = worker.run();
process.stdout.write('worker-ready\n');
// The deployment's first version makes itself current, as the CLI's worker does.
if (version)
  void adoptIfNoCurrentVersion(client, version, required('SUBAGENTS_TASK_QUEUE')).then(
    (said) => process.stderr.write(`worker-process: ${said}\n`),
    (error: unknown) => process.stderr.write(`worker-process: ${String(error)}\n`),
  );
await running;
