import { describe, expect, it } from 'vitest';
import type { Worker } from '@temporalio/worker';
import { upgradeSignal } from '../../src/shared/protocol/definitions';
import { upgradeHopMemo } from '../../src/workflows/context/version-upgrade';
import { versionPollsQueue } from '../../src/client/deployments';
import { workerDeploymentOptions, type WorkerVersion } from '../../src/worker/versioning';
import { useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentNamed } from '../helpers/scripted-agents';
import { createTestWorker } from '../helpers/temporal';
import { failedWorkflowTasks, workflowRuns } from '../helpers/workflow-runs';

// Its own unversioned worker polls too: once a version is current, it gets none of these agents' tasks.
const env = useAgentTestEnv();

/** The version a run's workflow tasks ran on, as the server records it. */
async function versionOfRun(workflowId: string, runId?: string): Promise<string | undefined> {
  const description = await env.temporal.client.workflow.getHandle(workflowId, runId).describe();
  const info = description.raw.workflowExecutionInfo?.versioningInfo;
  const version = info?.deploymentVersion;
  return version?.buildId ? `${version.deploymentName}:${version.buildId}` : undefined;
}

const runsOf = (workflowId: string) => workflowRuns(env.temporal.client, workflowId);

async function versionedWorker(version: WorkerVersion): Promise<{ worker: Worker; running: Promise<void> }> {
  const worker = await createTestWorker(env.temporal, {
    taskQueue: env.taskQueue,
    modelBaseUrl: env.modelServer.url,
    workerOptions: { workerDeploymentOptions: workerDeploymentOptions(version) },
  });
  return { worker, running: worker.run() };
}

/** Waits until the version's worker has polled the test's queue (its first poll registers it). */
async function waitForPolls(version: WorkerVersion): Promise<void> {
  await waitFor(
    () => versionPollsQueue(env.temporal.client, version, env.taskQueue),
    30_000,
    `${version.buildId} polling`,
  );
}

async function makeCurrent(version: WorkerVersion): Promise<void> {
  await waitForPolls(version);
  await env.temporal.client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: 'default',
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    allowNoPollers: true,
  });
}

async function failedTasks(workflowId: string): Promise<number> {
  return (await runsOf(workflowId)).reduce((sum, run) => sum + failedWorkflowTasks(run), 0);
}

describe('worker versioning: pinned agents and the upgrade hop', () => {
  it('keeps a short agent on its version and moves an idle interactive agent onto the new current one', async () => {
    const deploymentName = `upgrade-${env.taskQueue}`;
    const a: WorkerVersion = { deploymentName, buildId: 'a' };
    const b: WorkerVersion = { deploymentName, buildId: 'b' };
    const workerA = await versionedWorker(a);
    await makeCurrent(a);
    env.script(
      agentNamed('chat', [{ text: 'HELLO-1' }, { text: 'HELLO-2' }]),
      // Slow enough to still run when b becomes current.
      agentNamed('short', [{ text: 'SHORT-DONE', delayMs: 8_000 }]),
    );
    const chat = await env.start({ prompt: 'CHAT', name: 'chat', interactive: { idleTimeoutMs: 300_000 } });
    await waitFor(async () => (await chat.status()).latestText === 'HELLO-1', 30_000, 'first answer');
    // b polls before the short agent starts, so that it still runs when b becomes current.
    const workerB = await versionedWorker(b);
    await waitForPolls(b);
    const short = await env.start({ prompt: 'SHORT', name: 'short' });
    await waitFor(async () => (await versionOfRun(short.agentId)) !== undefined, 30_000, 'short agent started');
    expect(await versionOfRun(chat.agentId)).toBe(`${deploymentName}:a`);
    await makeCurrent(b);
    for (const agentId of [chat.agentId, short.agentId])
      await env.temporal.client.workflow.getHandle(agentId).signal(upgradeSignal, { buildId: 'b' });

    // The idle interactive agent hops: one run on a that only continues as new, then a run on b.
    await waitFor(async () => (await versionOfRun(chat.agentId)) === `${deploymentName}:b`, 60_000, 'chat on b');
    const chatRuns = await runsOf(chat.agentId);
    expect(chatRuns.length).toBe(3);
    expect(chatRuns[1]!.memo[upgradeHopMemo]).toBe(chatRuns[0]!.runId);
    expect(await versionOfRun(chat.agentId, chatRuns[1]!.runId)).toBe(`${deploymentName}:a`);
    // Its conversation came along: the next message is answered on b after the first answer.
    await env.client.send(chat.agentId, 'AGAIN');
    await waitFor(async () => (await chat.status()).latestText === 'HELLO-2', 30_000, 'second answer');

    // The short agent is pinned: it ends on a, in its one run.
    expect((await short.result()).finalText).toBe('SHORT-DONE');
    expect((await runsOf(short.agentId)).length).toBe(1);
    expect(await versionOfRun(short.agentId)).toBe(`${deploymentName}:a`);

    // A notice naming the agent's own build is no upgrade.
    await env.temporal.client.workflow.getHandle(chat.agentId).signal(upgradeSignal, { buildId: 'b' });
    await chat.close();
    expect((await chat.result()).finalText).toBe('HELLO-2');
    expect((await runsOf(chat.agentId)).length).toBe(3);
    expect(await failedTasks(chat.agentId)).toBe(0);
    expect(await failedTasks(short.agentId)).toBe(0);

    for (const { worker, running } of [workerA, workerB]) {
      worker.shutdown();
      await running;
    }
  });

  it('refuses a malformed upgrade notice without harm', async () => {
    const deploymentName = `upgrade-bad-${env.taskQueue}`;
    const a: WorkerVersion = { deploymentName, buildId: 'bad-a' };
    const workerA = await versionedWorker(a);
    await makeCurrent(a);
    env.script(agentNamed('idle', [{ text: 'IDLE-1' }, { text: 'IDLE-2' }]));
    const idle = await env.start({ prompt: 'IDLE', name: 'idle', interactive: { idleTimeoutMs: 300_000 } });
    await waitFor(async () => (await idle.status()).latestText === 'IDLE-1', 30_000, 'first answer');
    const handle = env.temporal.client.workflow.getHandle(idle.agentId);
    for (const notice of [{ buildId: 'has space' }, { buildId: '' }, { nope: 1 }, 'b'])
      await handle.signal(upgradeSignal, notice as never);
    await env.client.send(idle.agentId, 'AGAIN');
    await waitFor(async () => (await idle.status()).latestText === 'IDLE-2', 30_000, 'second answer');
    expect((await runsOf(idle.agentId)).length).toBe(1);
    await idle.close();
    await idle.result();
    workerA.worker.shutdown();
    await workerA.running;
  });
});
