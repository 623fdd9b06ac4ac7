// @slow
// Workers on several machines (docs/operations.md): two "machines" (a shared-queue worker and its
// workspace worker each, with separate workspace roots) on one dev server.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { workspaceActivityNames } from '../../src/shared/workspace/workspace-routing';
import { waitFor } from '../helpers/child-worker';
import { activityStarts, recordHistory } from '../helpers/histories';
import {
  connectTestTemporal,
  createTestWorker,
  createTestWorkspaceWorker,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { agentWithId, bash, spawn } from '../helpers/scripted-agents';

let temporal: TestTemporal;
let modelServer: ModelServer;
let client: SubagentsClient;
const taskQueue = uniqueTaskQueue('routing');
const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-routing-')));
const roots = { alpha: path.join(base, 'alpha'), beta: path.join(base, 'beta'), gamma: path.join(base, 'gamma') };
const running: { worker: Worker; run: Promise<void> }[] = [];
const connections: TestTemporal[] = [];

async function start(worker: Worker): Promise<{ worker: Worker; run: Promise<void> }> {
  const entry = { worker, run: worker.run() };
  running.push(entry);
  return entry;
}

beforeAll(async () => {
  temporal = await connectTestTemporal();
  modelServer = await startModelServer({ port: 0, behaviour: scenario([]) });
  client = new SubagentsClient(temporal.client, taskQueue);
  for (const root of Object.values(roots)) {
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'shared.txt'), `files of ${path.basename(root)}\n`);
  }
  // Machines alpha and beta: each polls the shared queue and its own, and holds only its root.
  // Each has its own connection, as separate machines do (the SDK allows one worker per task queue per connection).
  for (const workerId of ['alpha', 'beta'] as const) {
    const machine = await connectTestTemporal();
    connections.push(machine);
    const workspace = { workerId, root: roots[workerId] };
    await start(await createTestWorker(machine, { taskQueue, modelBaseUrl: modelServer.url, workspace }));
    await start(await createTestWorkspaceWorker(machine, { taskQueue, modelBaseUrl: modelServer.url, workspace }));
  }
});
afterAll(async () => {
  for (const entry of running) if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
  await Promise.allSettled(running.map((entry) => entry.run));
  for (const connection of connections) await connection.close();
  await modelServer?.close();
  await temporal?.close();
});

/** Activities of a workflow: type, task queue, and the identity of the worker that started each. */
async function activities(workflowId: string): Promise<{ name: string; taskQueue: string; identity: string }[]> {
  const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return activityStarts(history.events ?? []);
}

type Block = { type: string; content?: unknown; is_error?: boolean };
const toolResults = async (agentId: string) =>
  (await client.getAgent(agentId).messages())
    .flatMap((message) => (typeof message.content === 'string' ? [] : (message.content as Block[])))
    .filter((block) => block.type === 'tool_result');

describe('workspace routing', () => {
  it("runs a placed agent's and its child's file work on the worker holding the files", async () => {
    const agentId = `routed-${Date.now().toString(36)}`;
    modelServer.setBehaviour(
      scenario([
        {
          match: { agentId },
          turns: [
            {
              toolUses: [
                { name: 'Write', input: { file_path: 'from-root.txt', content: 'root\n' } },
                bash('pwd > where-root.txt'),
              ],
            },
            {
              toolUses: [spawn('helper', 'write a file', { subagent_type: 'general-purpose' })],
            },
            // A placed agent's Read stays an activity task on its worker (elsewhere it runs inside the workflow task).
            { toolUses: [{ name: 'Read', input: { file_path: 'from-root.txt' } }] },
            { text: 'done' },
          ],
        },
        agentWithId(`${agentId}.1`, [
          { toolUses: [{ name: 'Write', input: { file_path: 'from-child.txt', content: 'child\n' } }] },
          { text: 'child done' },
        ]),
      ]),
    );
    const handle = await client.startAgent({
      agentId,
      prompt: 'routed',
      cwd: roots.beta,
      homeDir: base,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      worker: 'beta',
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(readFileSync(path.join(roots.beta, 'from-root.txt'), 'utf8')).toBe('root\n');
    expect(readFileSync(path.join(roots.beta, 'from-child.txt'), 'utf8')).toBe('child\n');
    expect(readFileSync(path.join(roots.beta, 'where-root.txt'), 'utf8').trim()).toBe(roots.beta);
    expect(existsSync(path.join(roots.alpha, 'from-root.txt'))).toBe(false);
    for (const id of [agentId, `${agentId}.1`]) {
      const ran = await activities(id);
      const workspaceCalls = ran.filter((activity) =>
        (workspaceActivityNames as readonly string[]).includes(activity.name),
      );
      expect(workspaceCalls.length).toBeGreaterThanOrEqual(2);
      if (id === agentId) expect(workspaceCalls.map((call) => call.name)).toContain('Read');
      for (const call of workspaceCalls) {
        expect(call.taskQueue, `${id} ${call.name}`).toBe(`${taskQueue}@beta`);
        expect(call.identity, `${id} ${call.name}`).toMatch(/^beta /);
      }
      for (const call of ran.filter((activity) => activity.name === 'callModel'))
        expect(call.taskQueue).toBe(taskQueue);
    }
    await recordHistory(temporal.client, agentId, 'workspace-routing-placed-agent');
  });

  it('tells the model when the worker holding its files is gone, and the agent goes on', async () => {
    const gamma = { workerId: 'gamma', root: roots.gamma };
    const gammaWorker = await start(
      await createTestWorkspaceWorker(temporal, { taskQueue, modelBaseUrl: modelServer.url, workspace: gamma }),
    );
    const agentId = `gone-${Date.now().toString(36)}`;
    modelServer.setBehaviour(
      scenario([
        {
          match: { agentId },
          turns: [
            { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] },
            { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }], delayMs: 3000 },
            { text: 'gave up on the files' },
          ],
        },
      ]),
    );
    const handle = await client.startAgent({
      agentId,
      prompt: 'gone',
      cwd: roots.gamma,
      homeDir: base,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      worker: 'gamma',
      workerWaitMs: 1500,
    });
    const secondTurn = () =>
      modelServer
        .requests()
        .filter((request) => request.headers['x-subagents-agent-id'] === agentId && request.turnIndex === 1).length > 0;
    await waitFor(secondTurn, 60_000, 'the second model call');
    gammaWorker.worker.shutdown();
    await gammaWorker.run;
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const [first, second] = await toolResults(agentId);
    expect(JSON.stringify(first?.content)).toContain('files of gamma');
    expect(second?.is_error).toBe(true);
    expect(JSON.stringify(second?.content)).toMatch(
      /Read failed: WorkspaceWorkerUnavailable: Read did not run: no worker \\"gamma\\" .*within 2 s\. Start that worker again/,
    );
  });

  it('fails an agent placed on a worker that never comes, naming it', async () => {
    const handle = await client.startAgent({
      prompt: 'nobody',
      cwd: roots.alpha,
      homeDir: base,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      worker: 'nobody-here',
      workerWaitMs: 1000,
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(
      /^WorkspaceWorkerUnavailable: Rendering the system prompt and agent context did not run: no worker "nobody-here"/,
    );
  });

  it('refuses, on a worker with a workspace root, an unplaced agent whose files are elsewhere', async () => {
    const soloQueue = uniqueTaskQueue('routing-solo');
    const solo = await start(
      await createTestWorker(temporal, {
        taskQueue: soloQueue,
        modelBaseUrl: modelServer.url,
        workspace: { root: roots.alpha },
      }),
    );
    const soloClient = new SubagentsClient(temporal.client, soloQueue);
    const handle = await soloClient.startAgent({
      prompt: 'elsewhere',
      cwd: roots.beta,
      homeDir: base,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    // The refusal is the failure's cause (the agent start runs as a local activity) or, for a run that
    // rendered its start as an activity task, that activity's cause: either way it names both directories.
    const messages: string[] = [];
    for (
      let cause = (failure as WorkflowFailedError).cause as { cause?: unknown; message?: string } | undefined;
      cause;
      cause = cause.cause as typeof cause
    )
      messages.push(cause.message ?? '');
    expect(
      messages.some((message) =>
        new RegExp(`^WorkspaceNotOnThisWorker: ${roots.beta} is not under ${roots.alpha}`).test(message),
      ),
    ).toBe(true);
    solo.worker.shutdown();
  });
});
