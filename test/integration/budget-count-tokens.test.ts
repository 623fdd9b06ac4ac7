// @slow
/**
 * Counted input (docs/budgets.md): with SUBAGENTS_COUNT_TOKENS=always, a budgeted agent's first call reserves
 * what the server's count_tokens says of the very body the call sends; later calls keep the corrected
 * estimate; a count_tokens that fails leaves the call to reserve its estimate and go on.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type proto from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import type { RecordedRequest } from '../../src/model-server/server';
import { estimateConversationTokens } from '../../src/shared/model/context-estimate';
import type { MessageParam } from '../../src/shared/model/messages';
import type { AgentState } from '../../src/workflows/loop/agent-state';
import { estimateNextRequestTokens } from '../../src/workflows/context/context-meter';
import { createAgentTestEnv, scenario, type AgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { recordHistory } from '../helpers/histories';
import { createTestWorker, testHomeDir, uniqueTaskQueue } from '../helpers/temporal';
import { agentNamed, agentPrompted, spawn } from '../helpers/scripted-agents';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const previousSetting = process.env.SUBAGENTS_COUNT_TOKENS;
let env: AgentTestEnv;

beforeAll(async () => {
  // Read by the worker's activities when they are created: the local model server is not the real API.
  process.env.SUBAGENTS_COUNT_TOKENS = 'always';
  env = await createAgentTestEnv({ kind: 'echo' });
});
afterAll(async () => {
  await env?.close();
  if (previousSetting === undefined) delete process.env.SUBAGENTS_COUNT_TOKENS;
  else process.env.SUBAGENTS_COUNT_TOKENS = previousSetting;
});

/** A root that starts one foreground child, then answers; the child answers at once. */
function oneChild(name: string) {
  return scenario([
    agentNamed(name, [{ toolUses: [spawn('counted', `COUNTED-CHILD ${name}`)] }, { text: 'ROOT-DONE' }]),
    agentPrompted(`COUNTED-CHILD ${name}`, [{ text: 'CHILD-DONE' }]),
  ]);
}

/** The input tokens of an agent's first reservation, as its `budgetReserve` signal to the root carried them. */
async function firstReservedInput(agentId: string): Promise<number> {
  const events = ((await env.temporal.client.workflow.getHandle(agentId).fetchHistory()).events ??
    []) as HistoryEvent[];
  const reserve = events.find(
    (event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'budgetReserve',
  );
  const payload = reserve?.signalExternalWorkflowExecutionInitiatedEventAttributes?.input?.payloads?.[0];
  expect(payload?.data, `${agentId} sent budgetReserve`).toBeDefined();
  return (JSON.parse(Buffer.from(payload!.data!).toString()) as { request: { inputTokens: number } }).request
    .inputTokens;
}

const ofAgent = (requests: RecordedRequest[], path: string, agentId: string) =>
  requests.filter((request) => request.path === path && request.headers['x-subagents-agent-id'] === agentId);

/** Without the breakpoints the request builder adds (the estimate leaves them out). */
function withoutCacheControl<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner))) as T;
}

/** The workflow's own estimate of a first request (src/workflows/context/context-meter.ts), from the body it sent. */
function firstCallEstimate(body: {
  system: { text: string }[];
  tools?: { name: string }[];
  messages: MessageParam[];
}): number {
  const messages = withoutCacheControl(body.messages);
  const state = {
    contextOverheadTokens: undefined,
    systemPrompt: body.system[0]!.text,
    conversation: { tokensOf: () => estimateConversationTokens(messages) },
  };
  return estimateNextRequestTokens(
    { tools: (body.tools ?? []).map((tool) => tool.name) },
    state as unknown as AgentState,
  );
}

/** A sent Messages body without the fields count_tokens does not take. */
function countableBody(rawBody: string): Record<string, unknown> {
  const { max_tokens: _maxTokens, stream: _stream, ...body } = JSON.parse(rawBody) as Record<string, unknown>;
  return body;
}

describe('count_tokens for a budgeted first call', () => {
  it('reserves the count of the body the call sends, once per agent', async () => {
    const name = 'count-always';
    env.modelServer.setBehaviour(oneChild(name));
    const { handle } = await runCompleted(env, {
      prompt: 'count me',
      name,
      limits: { budget: { caps: { tokens: 5_000_000 } } },
    });
    const childId = `${handle.agentId}.1`;
    const requests = env.modelServer.requests();

    // Each agent asked count_tokens once: its first call; the root's second call reserved the corrected estimate.
    expect(ofAgent(requests, '/v1/messages/count_tokens', handle.agentId)).toHaveLength(1);
    expect(ofAgent(requests, '/v1/messages', handle.agentId)).toHaveLength(2);
    const [counted] = ofAgent(requests, '/v1/messages/count_tokens', childId);
    const [sent] = ofAgent(requests, '/v1/messages', childId);
    expect(counted).toBeDefined();
    expect(sent).toBeDefined();

    // The counted body is the sent body, without what count_tokens does not take.
    const sentBody = countableBody(sent!.rawBody);
    expect(JSON.parse(counted!.rawBody)).toEqual(sentBody);

    // The reservation is the server's count, which is what the call was billed for its prompt.
    const reserved = await firstReservedInput(childId);
    const served = sent!.served!;
    expect(reserved).toBe(served.inputTokens + served.cacheCreationInputTokens + served.cacheReadInputTokens);
    // ... and not the estimate it would have reserved without the count.
    expect(reserved).not.toBe(firstCallEstimate(sentBody as never));
    await recordHistory(env.temporal.client, handle.agentId, 'budget-count-tokens-root');
    await recordHistory(env.temporal.client, childId, 'budget-count-tokens-child');
  }, 120_000);

  it('reserves the estimate and goes on when count_tokens fails', async () => {
    const name = 'count-fails';
    env.modelServer.setBehaviour(oneChild(name));
    let countsRefused = 0;
    // The model server behind a proxy that fails every count_tokens with a 500.
    const target = new URL(env.modelServer.url);
    const proxy = http.createServer((request, response) => {
      if (request.url?.startsWith('/v1/messages/count_tokens')) {
        countsRefused += 1;
        request.resume();
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }));
        return;
      }
      const forward = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', () => response.destroy());
      request.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const taskQueue = uniqueTaskQueue();
    let worker: Worker | undefined;
    let running: Promise<void> | undefined;
    try {
      worker = await createTestWorker(env.temporal, {
        taskQueue,
        modelBaseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        homeDir: testHomeDir(),
      });
      running = worker.run();
      const client = new SubagentsClient(env.temporal.client, taskQueue);
      const handle = await client.startAgent({
        prompt: 'count me',
        name,
        homeDir: testHomeDir(),
        cwd: env.workspace,
        model: 'claude-test-tiny',
        permissionMode: 'bypassPermissions',
        limits: { forking: false, budget: { caps: { tokens: 5_000_000 } } },
      });
      const result = await handle.result();
      expect(result.status).toBe('completed');
      expect(result.finalText).toContain('ROOT-DONE');
      // Both agents asked (root and child), both calls went on.
      expect(countsRefused).toBe(2);
      const childId = `${handle.agentId}.1`;
      const [sent] = ofAgent(env.modelServer.requests(), '/v1/messages', childId);
      expect(sent).toBeDefined();
      const sentBody = countableBody(sent!.rawBody);
      expect(await firstReservedInput(childId)).toBe(firstCallEstimate(sentBody as never));
    } finally {
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  }, 120_000);
});
