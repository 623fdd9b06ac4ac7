// A rolling upgrade on the cluster (docs/operations.md, "Upgrades"): two versions of one worker
// deployment as `subagents worker --deployment` processes on PostgreSQL, promoted and drained with
// `subagents deploy`; the short agent stays on its version, the interactive root moves through the hop.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SubagentsClient } from '../../src/client/client';
import { projectRoot } from '../../src/dev/temporal-cli';
import { upgradeHopMemo } from '../../src/workflows/context/version-upgrade';
import { sleep, withTimeout } from '../chaos/util';
import { failedWorkflowTasks, taskBuildIds, workflowRuns } from '../helpers/workflow-runs';
import { CheckFailed, expectNone, type Check, type SuiteContext } from './context';

interface VersionWorker {
  child: ChildProcess;
  output: () => string;
}

function cliEnv(context: SuiteContext, taskQueue: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: context.env.info.address,
    TEMPORAL_NAMESPACE: context.env.info.namespace,
    SUBAGENTS_TASK_QUEUE: taskQueue,
    ANTHROPIC_BASE_URL: context.env.modelServer.url,
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.TEMPORAL_PROFILE;
  return env;
}

/** `subagents worker --deployment NAME --build-id BUILD`, resolved once it logs where its version stands. */
async function startVersion(
  context: SuiteContext,
  taskQueue: string,
  deployment: string,
  buildId: string,
): Promise<VersionWorker> {
  const child = spawn(
    process.execPath,
    [path.join(projectRoot, 'bin', 'subagents.js'), 'worker', '--deployment', deployment, '--build-id', buildId],
    { env: cliEnv(context, taskQueue), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const said = new RegExp(`version ${deployment}:${buildId} (made current|is current|is not current)`);
  const deadline = Date.now() + 120_000;
  while (!said.test(output)) {
    if (child.exitCode !== null) throw new CheckFailed(`worker ${buildId} exited: ${output.slice(-600)}`);
    if (Date.now() > deadline)
      throw new CheckFailed(`worker ${buildId} did not report its version: ${output.slice(-600)}`);
    await sleep(250);
  }
  return { child, output: () => output };
}

async function stopVersion(worker: VersionWorker): Promise<void> {
  if (worker.child.exitCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGTERM');
  await withTimeout(exited, 60_000, 'a version worker to stop');
}

/** `subagents deploy ...` on the cluster; throws with its output when it fails. */
async function deploy(context: SuiteContext, taskQueue: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, [path.join(projectRoot, 'bin', 'subagents.js'), 'deploy', ...args], {
    env: cliEnv(context, taskQueue),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await withTimeout(
    new Promise<number | null>((resolve) => child.once('exit', resolve)),
    600_000,
    `deploy ${args[0]}`,
  );
  if (code !== 0) throw new CheckFailed(`deploy ${args.join(' ')} exited ${code}: ${output.slice(-800)}`);
  return output;
}

/** Each run of an agent, first to last, with the builds its workflow tasks ran on and whether any failed. */
async function runsOf(
  context: SuiteContext,
  agentId: string,
): Promise<{ runId: string; builds: string[]; failedTasks: number; hopFrom?: unknown }[]> {
  return (await workflowRuns(context.env.temporal, agentId)).map((run) => ({
    runId: run.runId,
    builds: [...new Set(taskBuildIds(run).filter((build) => build !== '(none)'))],
    failedTasks: failedWorkflowTasks(run),
    hopFrom: run.memo[upgradeHopMemo],
  }));
}

async function waitUntil(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new CheckFailed(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(500);
  }
}

export const rollingUpgradeCheck: Check = {
  name: 'rolling upgrade: promote and drain a worker version',
  async run(context) {
    const { env, tag } = context;
    const taskQueue = `upgrade-${tag}`;
    const deployment = `up-${tag}`;
    const cwd = path.join(env.rootOf('worker-1'), `upgrade-${tag}`);
    mkdirSync(cwd, { recursive: true });
    const rootId = `cl-${tag}-upgrade`;
    const shortId = `cl-${tag}-upgrade-short`;
    env.addAgents([
      { match: { agentId: rootId }, turns: [{ text: 'UPGRADE-1' }, { text: 'UPGRADE-2' }] },
      { match: { agentId: shortId }, turns: [{ text: 'SHORT-DONE', delayMs: 15_000 }] },
    ]);
    const workers: VersionWorker[] = [];
    try {
      workers.push(await startVersion(context, taskQueue, deployment, 'a'));
      if (!/made current/.test(workers[0]!.output()))
        throw new CheckFailed(`the deployment's first version did not make itself current: ${workers[0]!.output()}`);
      const client = new SubagentsClient(env.temporal, taskQueue);
      const common = { cwd, homeDir: cwd, model: 'claude-test-tiny', permissionMode: 'bypassPermissions' as const };
      const root = await client.startAgent({
        ...common,
        agentId: rootId,
        prompt: 'CLUSTER upgrade root',
        interactive: { idleTimeoutMs: 600_000 },
      });
      await waitUntil('the root to answer on a', async () => (await root.status()).latestText === 'UPGRADE-1', 60_000);
      workers.push(await startVersion(context, taskQueue, deployment, 'b'));
      const short = await client.startAgent({ ...common, agentId: shortId, prompt: 'CLUSTER upgrade short' });
      await waitUntil(
        'the short agent to start on a',
        async () => (await runsOf(context, shortId))[0]!.builds.length > 0,
        60_000,
      );
      const promoteStarted = Date.now();
      await deploy(context, taskQueue, ['promote', 'b', '--deployment', deployment]);
      await waitUntil(
        'the root to move to b',
        async () => (await runsOf(context, rootId)).at(-1)!.builds.includes('b'),
        120_000,
      );
      const movedMs = Date.now() - promoteStarted;
      const shortResult = await withTimeout(short.result(), 120_000, 'the short agent');
      const drainStarted = Date.now();
      await deploy(context, taskQueue, ['drain', 'a', '--wait', '--timeout', '540', '--deployment', deployment]);
      const drainedMs = Date.now() - drainStarted;
      await stopVersion(workers[0]!);
      await client.send(rootId, 'after the upgrade');
      await waitUntil('the root to answer on b', async () => (await root.status()).latestText === 'UPGRADE-2', 60_000);
      await root.close();
      await withTimeout(root.result(), 60_000, 'the root');

      const rootRuns = await runsOf(context, rootId);
      const shortRuns = await runsOf(context, shortId);
      const problems: string[] = [];
      if (shortResult.finalText !== 'SHORT-DONE') problems.push(`short agent ended with "${shortResult.finalText}"`);
      if (shortRuns.length !== 1 || shortRuns[0]!.builds.join() !== 'a')
        problems.push(`short agent ran on ${shortRuns.map((run) => run.builds.join('+')).join(' → ')}, not a alone`);
      const hop = rootRuns.findIndex((run, index) => index > 0 && run.hopFrom === rootRuns[index - 1]!.runId);
      if (rootRuns[0]!.builds.join() !== 'a') problems.push(`root's first run on ${rootRuns[0]!.builds.join('+')}`);
      if (hop < 0 || rootRuns[hop]!.builds.join() !== 'a') problems.push('no hop run on a after the promote');
      if (rootRuns.at(-1)!.builds.join() !== 'b')
        problems.push(`root's last run on ${rootRuns.at(-1)!.builds.join('+')}`);
      for (const [id, runs] of [
        [rootId, rootRuns],
        [shortId, shortRuns],
      ] as const)
        for (const run of runs)
          if (run.failedTasks > 0) problems.push(`${id} run ${run.runId}: ${run.failedTasks} failed workflow task(s)`);
      expectNone(problems, 'rolling upgrade');
      context.figures.upgradeMoveMs = movedMs;
      context.figures.upgradeDrainMs = drainedMs;
      return `root a → hop → b in ${(movedMs / 1000).toFixed(1)} s after promote; short agent stayed on a; a drained in ${(drainedMs / 1000).toFixed(1)} s; no failed task`;
    } finally {
      for (const worker of workers) await stopVersion(worker).catch(() => undefined);
    }
  },
};
