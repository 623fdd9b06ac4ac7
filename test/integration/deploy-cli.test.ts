import type { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForTool } from '../helpers/agent-waits';
import { agentVersion, describeDeployment, versionPollsQueue } from '../../src/client/deployments';
import { workerDeploymentOptions } from '../../src/worker/versioning';
import { scenario, useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';
import { agentNamed, bash } from '../helpers/scripted-agents';
import { createTestWorker, uniqueTaskQueue } from '../helpers/temporal';

// `subagents deploy` over two versioned in-process workers of one deployment on the test queue.
const deploymentName = uniqueTaskQueue('deploy');
// The options createAgentWorker's `version` gives a worker (src/worker/versioning.ts).
const versioned = (buildId: string) => ({
  workerDeploymentOptions: workerDeploymentOptions({ deploymentName, buildId }),
});

const env = useAgentTestEnv(scenario([agentNamed('pinned', [{ toolUses: [bash('sleep 60')] }])]), {
  workerOptions: versioned('a'),
});
useCliEnvironment(env, { SUBAGENTS_DEPLOYMENT: deploymentName });

let workerB: { worker: Worker; running: Promise<void> } | undefined;
afterAll(async () => {
  workerB?.worker.shutdown();
  await workerB?.running;
});

/** Waits until the server lists the test queue among the version's queues (its worker's first poll registers both). */
async function waitForVersion(buildId: string): Promise<void> {
  await waitFor(
    () => versionPollsQueue(env.temporal.client, { deploymentName, buildId }, env.taskQueue),
    30_000,
    `version ${buildId} polling ${env.taskQueue}`,
  );
}

interface StatusJson {
  currentBuildId?: string;
  ramping?: { buildId: string; percentage: number };
  versions: { buildId: string; status: string; drainage?: string; runningAgents: number }[];
  unversionedRunningAgents: number;
}

async function statusJson(): Promise<StatusJson> {
  const shown = await cli('deploy', 'status', '--json');
  expect(shown.err).toBe('');
  return JSON.parse(shown.out) as StatusJson;
}

describe('subagents deploy', () => {
  it('refuses an unknown deployment and an unknown build, saying how to start a worker of it', async () => {
    const unknown = await cli('deploy', 'status', '--deployment', `${deploymentName}-nope`);
    expect(unknown.code).toBe(4);
    expect(unknown.err).toContain(`No worker deployment "${deploymentName}-nope"`);
    expect(unknown.err).toContain(`subagents worker --deployment ${deploymentName}-nope --build-id BUILD`);

    await waitForVersion('a');
    const build = await cli('deploy', 'promote', 'zz');
    expect(build.code).toBe(4);
    expect(build.err).toContain(`Build "zz" is not a version of deployment "${deploymentName}"`);
    expect(build.err).toContain(`subagents worker --deployment ${deploymentName} --build-id zz`);
  });

  it('promotes, ramps, refuses to drain the current version, and drains the old one', async () => {
    await waitForVersion('a');
    const promotedA = await cli('deploy', 'promote', 'a');
    expect(promotedA.err).toBe('');
    expect(promotedA.out).toContain(`a is current in ${deploymentName}`);
    expect((await statusJson()).currentBuildId).toBe('a');

    // An agent in a long Bash call: pinned to a, and no turn boundary at which it could move.
    const handle = await env.start({ prompt: 'wait in a tool call', name: 'pinned' });
    await waitFor(
      async () => (await agentVersion(env.temporal.client, handle.agentId))?.buildId === 'a',
      30_000,
      'the agent pinned to a',
    );
    const shown = await cli('status', handle.agentId);
    expect(shown.out).toContain(`version ${deploymentName}:a`);
    const tree = await cli('ls', '--tree', handle.agentId);
    expect(tree.out.split('\n')[0]).toContain(`version ${deploymentName}:a`);

    const notYet = await cli('deploy', 'ramp', 'b', '--percent', '10');
    expect(notYet.code).toBe(4);
    expect(notYet.err).toContain(`subagents worker --deployment ${deploymentName} --build-id b`);

    const worker = await createTestWorker(env.temporal, {
      taskQueue: env.taskQueue,
      modelBaseUrl: env.modelServer.url,
      workerOptions: versioned('b'),
    });
    workerB = { worker, running: worker.run() };
    await waitForVersion('b');

    const ramped = await cli('deploy', 'ramp', 'b', '--percent', '30');
    expect(ramped.err).toBe('');
    expect((await statusJson()).ramping).toEqual({ buildId: 'b', percentage: 30 });
    const rampingDrain = await cli('deploy', 'drain', 'b');
    expect(rampingDrain.code).toBe(1);
    expect(rampingDrain.err).toContain('b is the ramping version');
    const stopped = await cli('deploy', 'ramp', '--stop');
    expect(stopped.out).toContain('Stopped the ramp to b');
    expect((await statusJson()).ramping).toBeUndefined();

    const promotedB = await cli('deploy', 'promote', 'b');
    expect(promotedB.err).toBe('');
    expect(promotedB.out).toContain('Sent the upgrade notice to 1 running agent(s)');
    const afterPromote = await statusJson();
    expect(afterPromote.currentBuildId).toBe('b');
    await waitFor(
      async () => (await statusJson()).versions.find((version) => version.buildId === 'a')?.runningAgents === 1,
      30_000,
      'the pinned agent counted on a',
    );

    const currentDrain = await cli('deploy', 'drain', 'b');
    expect(currentDrain.code).toBe(1);
    expect(currentDrain.err).toContain(`b is the current version of ${deploymentName}`);
    expect(currentDrain.err).toContain('Promote another build first');

    const pinned = await cli('deploy', 'drain', 'a', '--wait', '--timeout', '1');
    expect(pinned.code).toBe(1);
    expect(pinned.out).toContain(`Still on a: ${handle.agentId}`);
    expect(pinned.out).toContain('a is not drained');

    await handle.stop({ reason: 'drain test' });
    const drained = await cli('deploy', 'drain', 'a', '--wait', '--timeout', '60');
    expect(drained.err).toBe('');
    expect(drained.code).toBe(0);
    expect(drained.out).toContain('a is drained');
    const last = await statusJson();
    expect(last.versions.find((version) => version.buildId === 'a')).toMatchObject({
      drainage: 'drained',
      runningAgents: 0,
    });
    expect(last.unversionedRunningAgents).toBe(0);
  });

  it('refuses a ramp percentage outside 1..99 before connecting', async () => {
    for (const percent of ['0', '100', '12.5', 'ten']) {
      const refused = await cli('deploy', 'ramp', 'b', '--percent', percent);
      expect(refused.code, percent).toBe(2);
      expect(refused.err, percent).toContain(`--percent ${percent}:`);
    }
  });
});

describe('subagents deploy promote over agents started before versioning', () => {
  const unversionedDeployment = uniqueTaskQueue('deploy-pre');
  // The environment's own worker is unversioned: its agents carry no version.
  const plain = useAgentTestEnv(scenario([agentNamed('before', [{ toolUses: [bash('sleep 60')] }])]));
  let workerC: { worker: Worker; running: Promise<void> } | undefined;
  afterAll(async () => {
    workerC?.worker.shutdown();
    await workerC?.running;
  });

  it('refuses while they run, and goes ahead with --force', async () => {
    const handle = await plain.start({ prompt: 'wait before versioning', name: 'before' });
    await waitForTool(plain, handle.agentId, 'Bash', 'the unversioned agent in its Bash call');
    const worker = await createTestWorker(plain.temporal, {
      taskQueue: plain.taskQueue,
      modelBaseUrl: plain.modelServer.url,
      workerOptions: {
        workerDeploymentOptions: workerDeploymentOptions({ deploymentName: unversionedDeployment, buildId: 'c' }),
      },
    });
    workerC = { worker, running: worker.run() };
    // The version lists the queue its worker polls a moment after the deployment lists the version.
    await waitFor(
      () =>
        versionPollsQueue(
          plain.temporal.client,
          { deploymentName: unversionedDeployment, buildId: 'c' },
          plain.taskQueue,
        ),
      30_000,
      'version c polling the queue',
    );
    expect(await agentVersion(plain.temporal.client, handle.agentId)).toBeUndefined();
    const status = await cli('deploy', 'status', '--deployment', unversionedDeployment, '--json');
    expect(JSON.parse(status.out)).toMatchObject({ unversionedRunningAgents: 1 });
    expect((await cli('deploy', 'status', '--deployment', unversionedDeployment)).out).toContain(
      'running agents on no version (started before versioning): 1',
    );

    const refused = await cli('deploy', 'promote', 'c', '--deployment', unversionedDeployment);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("1 running agent(s) on the deployment's task queues have no version");
    expect(refused.err).toContain('or pass --force');
    expect((await describeDeployment(plain.temporal.client, unversionedDeployment)).currentBuildId).toBeUndefined();

    const forced = await cli('deploy', 'promote', 'c', '--deployment', unversionedDeployment, '--force');
    expect(forced.err).toBe('');
    expect(forced.out).toContain(`c is current in ${unversionedDeployment}`);
    expect((await describeDeployment(plain.temporal.client, unversionedDeployment)).currentBuildId).toBe('c');
    await handle.stop({ reason: 'deploy test' });
  });
});
