// The bare-SDK side of a bench: a worker of its own in the bench process, on the bench's server, that runs
// bench/floor/workflows.ts with the served-conversation activities — the same model requests and tool
// functions as the durable agent's, with nothing of the runtime — so a bench measures the SDK's and the
// server's own cost in the same minute as the agent's.
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { agentHeaderNames } from '../../src/shared/model/agent-headers';
import type { ModelServer } from '../../src/model-server/server';
import { render } from '../floor/activities';
import { servedLoopActivities } from '../floor/served-activities';
import type { BenchEnv } from './bench-env';
import { maxConcurrentToolCalls } from '../../src/shared/protocol/limits';
import { requestsByAgent } from './model-log';
import { openConversation, type FirstRequest, type ServedConversation } from './served-conversation';
import { withTimeout } from './wait';

export interface BareSdk {
  readonly taskQueue: string;
  /**
   * Opens the conversation a bare workflow `key` works on: where the durable agent `agentId` started (its
   * first request as the model server recorded it). `asKey`: its requests name `key` as their agent (the
   * model server's log tells them apart; its tool-use ids then differ from the agent's), else `agentId`.
   */
  open(key: string, agentId: string, options?: { asKey?: boolean }): ServedConversation;
  conversation(key: string): ServedConversation | undefined;
  /**
   * The fan-out of the agent `rootId` as bare workflows (`floorServedFanParent`): its root's first request
   * (key `bare-<rootId>`), then its `count` children started as the runtime starts one message's Agent
   * calls (10 at a time), each a local activity and its own first request (keys `bare-<rootId>.<n>`).
   * Resolves when all have ended, with the root's conversation and the children's keys (forgotten by then:
   * their requests are in the model server's log).
   */
  fanOut(rootId: string, count: number): Promise<{ parent: ServedConversation; childKeys: string[] }>;
  forget(key: string): void;
  close(): Promise<void>;
}

/** The durable agent's first model request (body and x-subagents headers), from the model server's log. */
export function firstRequestOf(modelServer: ModelServer, agentId: string): FirstRequest {
  const request = requestsByAgent(modelServer).get(agentId)?.[0];
  if (!request) throw new Error(`no model request of ${agentId} in the model server's log`);
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([key]) => key.startsWith('x-subagents-')));
  return { body: JSON.parse(request.rawBody) as FirstRequest['body'], headers };
}

/**
 * The durable agent's first request as a bare workflow `key` sends it: its headers name `key` as their agent
 * (the model server's log tells the two apart; its tool-use ids then differ from the agent's).
 */
export function firstRequestAs(modelServer: ModelServer, agentId: string, key: string): FirstRequest {
  const first = firstRequestOf(modelServer, agentId);
  return { ...first, headers: { ...first.headers, [agentHeaderNames.id]: key } };
}

/**
 * `workerOptions`: for its worker, as `createBenchEnv`'s for the runtime's (e.g. `debugMode`).
 * `preloadModules`: for its bundle, e.g. the runtime's stack-frames module (src/workflows/runtime/stack-frames.ts) for
 * bare workflows whose promises cost the SDK's stack capture what the runtime's do; none by default.
 */
export async function startBareSdk(
  env: BenchEnv,
  anthropic: Anthropic,
  taskQueue = 'bare-sdk',
  workerOptions: Partial<WorkerOptions> = {},
  preloadModules: string[] = [],
): Promise<BareSdk> {
  const conversations = new Map<string, ServedConversation>();
  const connection = await NativeConnection.connect({ address: env.server.address });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    // An agent's start stand-in (bench:floor's `render`) and the served model calls and tool calls.
    activities: { render, ...servedLoopActivities(conversations) },
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: path.join(import.meta.dirname, '..', 'floor', 'workflows.ts'),
      preloadModules,
      logger: new DefaultLogger('WARN'),
    }),
    ...workerOptions,
  });
  const running = worker.run();
  const open: BareSdk['open'] = (key, agentId, options = {}) => {
    const first = options.asKey
      ? firstRequestAs(env.modelServer, agentId, key)
      : firstRequestOf(env.modelServer, agentId);
    const conversation = openConversation(anthropic, agentId, env.workspace, first);
    conversations.set(key, conversation);
    return conversation;
  };
  return {
    taskQueue,
    open,
    conversation: (key) => conversations.get(key),
    async fanOut(rootId, count) {
      const key = `bare-${rootId}`;
      const childKeys = Array.from({ length: count }, (_, index) => `${key}.${index + 1}`);
      const parent = open(key, rootId, { asKey: true });
      childKeys.forEach((childKey, index) => open(childKey, `${rootId}.${index + 1}`, { asKey: true }));
      try {
        await withTimeout(
          env.temporalClient.workflow.execute('floorServedFanParent', {
            taskQueue,
            workflowId: key,
            args: [count, maxConcurrentToolCalls],
          }),
          300_000,
          `${key} to finish`,
        );
      } finally {
        for (const done of [key, ...childKeys]) conversations.delete(done);
      }
      return { parent, childKeys };
    },
    forget: (key) => void conversations.delete(key),
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
