// A worker as a real child process, so tests can SIGKILL it mid-run and start another.
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createAgentWorker } from '../../src/worker';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`worker-process needs ${name}`);
  return value;
};

Runtime.install({ logger: new DefaultLogger('WARN') });
const address = required('TEMPORAL_ADDRESS');
const nativeConnection = await NativeConnection.connect({ address });
const connection = await Connection.connect({ address });
const worker = await createAgentWorker({
  connection: nativeConnection,
  client: new Client({ connection, namespace: 'default' }),
  namespace: 'default',
  taskQueue: required('SUBAGENTS_TASK_QUEUE'),
  anthropic: new Anthropic({ apiKey: 'test-key', baseURL: required('ANTHROPIC_BASE_URL'), maxRetries: 0 }),
  workflowBundle: { codePath: required('WORKFLOW_BUNDLE_PATH') },
  // Never the real ~/.claude: an empty home of its own.
  homeDir: mkdtempSync(path.join(os.tmpdir(), 'subagents-home-')),
  workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
});
const running = worker.run();
process.stdout.write('worker-ready\n');
await running;
