// Disruptions on the cluster: a stop cascading down a tree, a worker SIGKILLed mid-tree (the other
// worker takes over), its restart (its workspace's waiting calls resume), a worker that never
// comes (a clear failure), and a Temporal server restart on the same PostgreSQL.
import { existsSync, readFileSync } from 'node:fs';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { SubagentsClient } from '../../src/client/client';
import { retrying, sleep } from '../chaos/util';
import { CheckFailed, expectNone, type Check, type SuiteContext } from './context';
import { deadWorkers } from './env';
import { treeTasks } from './tasks';
import { rootDoneText, startTree, threeLevelTree, workspaceFor, type ScriptedAgent } from './trees';

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new CheckFailed(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

const requestedBy = (context: SuiteContext, agentId: string): boolean =>
  context.env.modelServer.requests().some((request) => request.headers['x-subagents-agent-id'] === agentId);

/** A check's root id (`cl-<tag>-<name>`), with a fresh repository and markers file for it under `worker`'s root. */
function checkRoot(
  context: SuiteContext,
  name: string,
  worker: string,
): { rootId: string; repo: string; markers: string } {
  const rootId = `cl-${context.tag}-${name}`;
  return { rootId, ...workspaceFor(context.env.rootOf(worker), rootId) };
}

/** Stopping a root stops its subtree: a leaf blocked in a long Bash is cancelled, and visibility shows nothing running. */
export const stopCascadeCheck: Check = {
  name: 'stop cascade down a 3-level tree',
  async run(context) {
    const { env } = context;
    const { rootId, repo, markers } = checkRoot(context, 'stop', 'worker-2');
    const agents: ScriptedAgent[] = [
      {
        match: { agentId: rootId },
        turns: [
          {
            toolUses: [
              {
                name: 'Agent',
                input: {
                  description: 'middle',
                  prompt: `CLUSTER middle of ${rootId}`,
                  subagent_type: 'general-purpose',
                },
              },
            ],
          },
          { text: 'not reached' },
        ],
      },
      {
        match: { agentId: `${rootId}.1` },
        turns: [
          {
            toolUses: [
              {
                name: 'Agent',
                input: { description: 'leaf', prompt: `CLUSTER leaf of ${rootId}`, subagent_type: 'general-purpose' },
              },
            ],
          },
          { text: 'not reached' },
        ],
      },
      {
        match: { agentId: `${rootId}.1.1` },
        turns: [
          {
            toolUses: [
              {
                name: 'Bash',
                input: {
                  command: `echo start >> '${markers}'; sleep 120; echo end >> '${markers}'`,
                  description: 'block',
                },
              },
            ],
          },
          { text: 'not reached' },
        ],
      },
    ];
    env.addAgents(agents);
    const tree = await startTree(env, { rootId, worker: 'worker-2', cwd: repo, permissionMode: 'bypassPermissions' });
    context.roots.all.push(rootId);
    await waitUntil(
      "the leaf's Bash to start",
      () => existsSync(markers) && readFileSync(markers, 'utf8').includes('start'),
      120_000,
    );
    const stoppedAt = Date.now();
    await tree.handle.stop({ by: 'cluster suite', reason: 'stop cascade check' });
    const outcome = await tree.result(120_000).then(
      (result) => `returned ${result.status}`,
      (error: unknown) =>
        error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure ? 'cancelled' : String(error),
    );
    if (outcome !== 'cancelled') throw new CheckFailed(`the root ${outcome}, expected a cancellation`);
    const running = `RootAgentId = '${rootId}' AND ExecutionStatus = 'Running'`;
    await waitUntil(
      'no agent of the tree running (visibility)',
      async () => (await env.temporal.workflow.count(running)).count === 0,
      60_000,
    );
    context.figures.stopCascadeMs = Date.now() - stoppedAt;
    const client = new SubagentsClient(env.temporal, env.info.taskQueue);
    const problems: string[] = [];
    for (const agentId of [rootId, `${rootId}.1`, `${rootId}.1.1`]) {
      const status = (await client.getAgent(agentId).describe()).status.name;
      if (status !== 'CANCELLED') problems.push(`${agentId} is ${status}`);
    }
    const leaf = await client.getAgent(`${rootId}.1.1`).status();
    if (!leaf.result?.error?.includes('cluster suite'))
      problems.push(`the leaf's result does not say who stopped it: ${leaf.result?.error}`);
    await sleep(2000);
    if (readFileSync(markers, 'utf8').includes('end')) problems.push("the leaf's Bash went on after the stop");
    expectNone(problems, 'stop cascade');
    return `3 agents cancelled, nothing running ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s after the stop`;
  },
};

/** A model call of the tree that worker-1 is running right now (from the pending activities), if any. */
async function modelCallOnWorker1(context: SuiteContext, agentIds: string[]): Promise<string | undefined> {
  for (const agentId of agentIds) {
    const description = await context.env.temporal.workflow
      .getHandle(agentId)
      .describe()
      .catch(() => undefined);
    const running = (description?.raw.pendingActivities ?? []).find(
      (activity) =>
        activity.activityType?.name === 'callModel' &&
        (activity.lastWorkerIdentity ?? '').startsWith('worker-1 ') &&
        !activity.lastFailure,
    );
    if (running && description?.status.name === 'RUNNING') return agentId;
  }
  return undefined;
}

/**
 * SIGKILL of worker-1 in the middle of a model call of a tree placed on worker-2: once the call's
 * heartbeat times out, worker-2 runs it again and finishes the tree alone (workflow tasks move to
 * it as well). worker-1 stays down for the next check.
 */
export const workerKillCheck: Check = {
  name: 'worker SIGKILL mid-tree: the other worker takes over',
  async run(context) {
    const { env } = context;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const { rootId, repo, markers } = checkRoot(context, `kill${attempt}`, 'worker-2');
      env.addAgents(threeLevelTree(rootId, markers, 2000));
      const tree = await startTree(env, { rootId, worker: 'worker-2', cwd: repo, permissionMode: 'bypassPermissions' });
      context.roots.all.push(rootId);
      const agentIds = ['', '.1', '.1.1', '.2'].map((suffix) => `${rootId}${suffix}`);
      let killed: { atMs: number; agentId: string } | undefined;
      let done = false;
      const settled = tree.result(300_000).then(
        (result) => result,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      void settled.finally(() => (done = true));
      while (!done && killed === undefined) {
        const agentId = await modelCallOnWorker1(context, agentIds);
        if (agentId) {
          await env.killWorker('worker-1');
          killed = { atMs: Date.now(), agentId };
          context.log(`SIGKILLed worker-1 during a model call of ${agentId}`);
        } else {
          await sleep(200);
        }
      }
      const result = await settled;
      if (!killed) {
        context.log(`${rootId} finished without worker-1 running one of its model calls; again with a new tree`);
        continue;
      }
      if (result instanceof Error) throw new CheckFailed(`${rootId} failed after the kill: ${result.message}`);
      if (result.status !== 'completed' || result.finalText !== rootDoneText(rootId))
        throw new CheckFailed(`${rootId} ended ${result.status}: ${result.finalText}`);
      const { tasks } = await treeTasks(env.temporal, rootId);
      const killedAt = killed.atMs;
      const after = tasks.filter((task) => task.atMs > killedAt);
      // A poll of worker-1 still open on the server at the kill can be handed a task; it must time out, not complete.
      const late = after.filter((task) => task.identity.startsWith('worker-1 ') && task.outcome !== 'timed-out');
      if (late.length > 0)
        throw new CheckFailed(
          `the killed worker-1 started tasks after its SIGKILL: ${late
            .map(
              (task) => `${task.workflowId} ${task.name} attempt ${task.attempt ?? 1} at +${task.atMs - killedAt} ms`,
            )
            .join('; ')}`,
        );
      const retried = tasks.find(
        (task) =>
          task.workflowId === killed!.agentId &&
          task.name === 'callModel' &&
          (task.attempt ?? 1) > 1 &&
          task.identity.startsWith('worker-2 '),
      );
      if (!retried) throw new CheckFailed(`no model call of ${killed.agentId} was run again by worker-2`);
      context.figures.takeoverMs = retried.atMs - killedAt;
      context.figures.takeoverTreeMs = Date.now() - killedAt;
      return `worker-1 killed mid model call of ${killed.agentId}; worker-2 ran it again (attempt ${retried.attempt}) ${((retried.atMs - killedAt) / 1000).toFixed(1)} s later and finished the tree`;
    }
    throw new CheckFailed('worker-1 ran none of the model calls of three trees (nothing to take over)');
  },
};

/** The workspace activity an agent starts with: `renderAgentStart` since the agent-start-context patch, `renderSystemPrompt` before. */
const startActivities = ['renderAgentStart', 'renderSystemPrompt'];

/** Calls placed on a worker that is down wait for it; started again (same id), it runs them and the agent completes. */
export const workerRestartCheck: Check = {
  name: 'an agent placed on a stopped worker waits, and runs once that worker is back',
  async run(context) {
    const { env } = context;
    if (!deadWorkers(env).includes('worker-1')) await env.killWorker('worker-1');
    const { rootId, repo } = checkRoot(context, 'waits', 'worker-1');
    env.addAgents([
      {
        match: { agentId: rootId },
        turns: [{ toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] }, { text: rootDoneText(rootId) }],
      },
    ]);
    const tree = await startTree(env, {
      rootId,
      worker: 'worker-1',
      cwd: repo,
      permissionMode: 'bypassPermissions',
      workerWaitMs: 180_000,
    });
    context.roots.all.push(rootId);
    await sleep(3000);
    if (requestedBy(context, rootId))
      throw new CheckFailed('the agent called the model before its system prompt was rendered on worker-1');
    const pending = (await tree.handle.describe()).raw.pendingActivities ?? [];
    if (!pending.some((activity) => startActivities.includes(activity.activityType?.name ?? '')))
      throw new CheckFailed(`no ${startActivities.join(' or ')} waiting for worker-1`);
    const restartedAt = Date.now();
    const pid = await env.startWorker('worker-1');
    const result = await tree.result(120_000);
    if (result.status !== 'completed') throw new CheckFailed(`${rootId} ${result.status}: ${result.error}`);
    const { tasks } = await treeTasks(env.temporal, rootId);
    const workspaceTasks = tasks.filter((task) => startActivities.includes(task.name) || task.name === 'Read');
    if (workspaceTasks.length !== 2 || !workspaceTasks.every((task) => task.identity.startsWith(`worker-1 ${pid}@`))) {
      throw new CheckFailed(
        `its workspace calls ran on ${workspaceTasks.map((task) => task.identity).join(', ')}, not the restarted worker-1 (pid ${pid})`,
      );
    }
    context.figures.restartToCompletionMs = Date.now() - restartedAt;
    return `waited on worker-1's queue, completed ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after worker-1 (pid ${pid}) was back`;
  },
};

/** A worker id no worker serves: the agent fails after its wait with a message naming the worker and the fix. */
export const workerGoneCheck: Check = {
  name: 'an agent placed on a worker that never comes fails clearly',
  async run(context) {
    const { env } = context;
    const { rootId, repo } = checkRoot(context, 'gone', 'worker-2');
    const began = Date.now();
    const tree = await startTree(env, {
      rootId,
      worker: 'worker-9',
      cwd: repo,
      permissionMode: 'bypassPermissions',
      workerWaitMs: 2000,
    });
    const message = await tree.result(60_000).then(
      (result) => `returned ${result.status}`,
      (error: unknown) =>
        error instanceof WorkflowFailedError ? (error.cause?.message ?? error.message) : String(error),
    );
    if (
      !message.startsWith('WorkspaceWorkerUnavailable:') ||
      !message.includes('"worker-9"') ||
      !message.includes('SUBAGENTS_WORKER_ID')
    ) {
      throw new CheckFailed(`unexpected outcome: ${message}`);
    }
    return `failed after ${((Date.now() - began) / 1000).toFixed(1)} s: ${message.slice(0, 70)}...`;
  },
};

/** The Temporal server stopped and started again mid-tree: state is in PostgreSQL, the workers reconnect, the tree completes. */
export const serverRestartCheck: Check = {
  name: 'Temporal server restart mid-tree (state kept in PostgreSQL)',
  async run(context) {
    const { env } = context;
    const { rootId, repo, markers } = checkRoot(context, 'restart', 'worker-1');
    env.addAgents(threeLevelTree(rootId, markers, 800));
    const tree = await startTree(env, { rootId, worker: 'worker-1', cwd: repo, permissionMode: 'bypassPermissions' });
    context.roots.all.push(rootId);
    await waitUntil(`${rootId}.1 to call the model`, () => requestedBy(context, `${rootId}.1`), 120_000);
    const outageMs = await env.restartServer(3000);
    context.figures.serverOutageMs = outageMs;
    context.log(`Temporal server restarted (${(outageMs / 1000).toFixed(1)} s without a server)`);
    // A worker that gave up while the server was away is started again (and reported), as a supervisor would.
    const restarted: string[] = [];
    let settled = false;
    const supervisor = (async () => {
      while (!settled) {
        for (const workerId of deadWorkers(env)) {
          restarted.push(workerId);
          context.log(`${workerId} exited while the server was away; starting it again`);
          await env.startWorker(workerId);
        }
        await sleep(1000);
      }
    })();
    const result = await tree.result(300_000).finally(() => (settled = true));
    await supervisor;
    if (result.status !== 'completed' || result.finalText !== rootDoneText(rootId))
      throw new CheckFailed(`${rootId} ${result.status}: ${result.finalText}`);
    const dead = restarted;
    const { agentIds } = await retrying('the tree', () => treeTasks(env.temporal, rootId));
    if (agentIds.length !== 4) throw new CheckFailed(`${agentIds.length} agents in the tree after the restart`);
    return `server down ${(outageMs / 1000).toFixed(1)} s; tree of 4 completed${dead.length ? `; ${dead.join(', ')} exited and were restarted` : '; both workers reconnected by themselves'}`;
  },
};
