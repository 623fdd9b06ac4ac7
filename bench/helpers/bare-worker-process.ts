// A bare-SDK worker in a process of its own (bench:scale's `bareSdk`), started as the agent's worker is
// (test/helpers/spawn-worker-process.ts, `spawnReadyProcess`): bench/floor/workflows.ts with the served
// conversations' activities, each conversation opened from a durable agent's first request, which the bench
// writes to the JSON file BARE_CONVERSATIONS_FILE ({ workspace, conversations: [{ key, agentId, first }] }),
// and their workflow bundle from WORKFLOW_BUNDLE_PATH (built by the bench, as the agent worker's is).
import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { render } from '../floor/activities';
import { servedLoopActivities } from '../floor/served-activities';
import { openConversation, type FirstRequest, type ServedConversation } from './served-conversation';

export interface BareConversationsFile {
  workspace: string;
  conversations: { key: string; agentId: string; first: FirstRequest }[];
}

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`bare-worker-process needs ${name}`);
  return value;
};

Runtime.install({ logger: new DefaultLogger('WARN') });
const file = JSON.parse(readFileSync(required('BARE_CONVERSATIONS_FILE'), 'utf8')) as BareConversationsFile;
const anthropic = new Anthropic({ apiKey: 'bench', baseURL: required('ANTHROPIC_BASE_URL'), maxRetries: 0 });
const conversations = new Map<string, ServedConversation>(
  file.conversations.map(({ key, agentId, first }) => [
    key,
    openConversation(anthropic, agentId, file.workspace, first),
  ]),
);
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address: required('TEMPORAL_ADDRESS') }),
  namespace: 'default',
  taskQueue: required('BARE_TASK_QUEUE'),
  activities: { render, ...servedLoopActivities(conversations) },
  workflowBundle: { codePath: required('WORKFLOW_BUNDLE_PATH') },
});
const running = worker.run();
console.log('worker-ready');
await running;
