import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, type DataConverter } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { startModelServer, type Behaviour, type ModelServer } from '../../src/model-server/server';
import { createAgentWorker } from '../../src/worker/worker';
import { connectTestTemporal, testHomeDir, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

/** A worker and clients that all use one DataConverter (as `subagents worker` and the CLI will), on the shared dev server. */
export interface CodecAgentEnv {
  temporal: TestTemporal;
  /** A Client with the data converter (the worker's activities use it too). */
  client: Client;
  agents: SubagentsClient;
  modelServer: ModelServer;
  workspace: string;
  close(): Promise<void>;
}

export async function createCodecAgentEnv(options: {
  behaviour: Behaviour;
  dataConverter: DataConverter;
  anthropicApiKey: string;
}): Promise<CodecAgentEnv> {
  const temporal = await connectTestTemporal();
  const client = new Client({
    connection: temporal.client.connection,
    namespace: 'default',
    dataConverter: options.dataConverter,
  });
  // The model server accepts only this key, so a completed agent proves the worker used it.
  const modelServer = await startModelServer({
    port: 0,
    behaviour: options.behaviour,
    apiKey: options.anthropicApiKey,
  });
  const taskQueue = uniqueTaskQueue('codec');
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-codec-')));
  const worker: Worker = await createAgentWorker({
    connection: temporal.nativeConnection,
    client,
    namespace: 'default',
    taskQueue,
    anthropic: new Anthropic({ apiKey: options.anthropicApiKey, baseURL: modelServer.url, maxRetries: 0 }),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    toolResultsDir: path.join(workspace, '..', `${path.basename(workspace)}-results`),
    homeDir: testHomeDir(),
    workerOptions: { dataConverter: options.dataConverter },
  });
  const running = worker.run();
  return {
    temporal,
    client,
    agents: new SubagentsClient(client, taskQueue),
    modelServer,
    workspace,
    close: async () => {
      worker.shutdown();
      await running;
      await modelServer.close();
      await temporal.close();
    },
  };
}
