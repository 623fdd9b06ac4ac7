// Trees on the cluster: placement of each agent's work on its worker, approvals, visibility.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SubagentsClient } from '../../src/client/client';
import { isInsideDirectory } from '../../src/shared/workspace/workspace-routing';
import { lostToolResults } from '../chaos/checks';
import { retrying } from '../chaos/util';
import { CheckFailed, expectNone, type Check, type SuiteContext } from './context';
import { placementProblems, treeTasks } from './tasks';
import { rootDoneText, startTree, threeLevelTree, workspaceFor } from './trees';

const treeTimeoutMs = 300_000;

/** Two 3-level trees (a worktree child, a fork, a leaf) at once, one per worker, each in that worker's workspace root. */
export const placementCheck: Check = {
  name: "3-level trees with forks and worktrees, each agent's tools on the worker holding its files",
  async run(context) {
    const { env } = context;
    const placements = ['worker-1', 'worker-2'].map((worker, index) => {
      const rootId = `cl-${context.tag}-tree${index + 1}`;
      return { worker, rootId, ...workspaceFor(env.rootOf(worker), rootId) };
    });
    env.addAgents(placements.flatMap((placement) => threeLevelTree(placement.rootId, placement.markers)));
    const began = Date.now();
    const started = await Promise.all(
      placements.map((placement) =>
        startTree(env, { rootId: placement.rootId, worker: placement.worker, cwd: placement.repo }),
      ),
    );
    const results = await Promise.all(started.map((tree) => tree.result(treeTimeoutMs)));
    context.figures.treeMs = Date.now() - began;
    context.roots.placement.push(...placements.map((placement) => placement.rootId));
    context.roots.all.push(...placements.map((placement) => placement.rootId));
    const problems: string[] = [];
    let activities = 0;
    for (const [index, placement] of placements.entries()) {
      const result = results[index]!;
      if (result.status !== 'completed' || result.finalText !== rootDoneText(placement.rootId))
        problems.push(`${placement.rootId}: ${result.status} "${result.finalText.slice(0, 60)}"`);
      problems.push(...(await treeProblems(context, placement)));
      const { tasks } = await treeTasks(env.temporal, placement.rootId);
      activities += tasks.filter((task) => task.kind === 'activity').length;
      problems.push(...placementProblems(tasks, env.info.taskQueue, placement.worker));
    }
    expectNone(problems, 'placement');
    context.figures.approvals = started.reduce((sum, tree) => sum + tree.approvals.length, 0);
    return `2 trees × 4 agents, ${activities} activities all where expected`;
  },
};

async function treeProblems(
  context: SuiteContext,
  placement: { worker: string; rootId: string; repo: string; markers: string },
): Promise<string[]> {
  const { env } = context;
  const client = new SubagentsClient(env.temporal, env.info.taskQueue);
  const { agentIds } = await treeTasks(env.temporal, placement.rootId);
  const expected = ['', '.1', '.1.1', '.2'].map((suffix) => `${placement.rootId}${suffix}`);
  const problems: string[] = [];
  if (agentIds.sort().join() !== expected.sort().join())
    problems.push(`${placement.rootId}: agents ${agentIds.join(', ')}`);
  for (const agentId of agentIds) {
    const description = await client.getAgent(agentId).describe();
    if (description.status.name !== 'COMPLETED') problems.push(`${agentId}: ${description.status.name}`);
    const lost = lostToolResults(
      await retrying(`conversation of ${agentId}`, () => client.getAgent(agentId).messages(), 60_000),
    );
    if (lost.length > 0) problems.push(`${agentId}: lost tool results ${lost.join(', ')}`);
  }
  const worktree = (await client.getAgent(`${placement.rootId}.1`).status()).result?.worktree;
  const workerRoot = env.rootOf(placement.worker);
  if (!worktree?.kept || !isInsideDirectory(workerRoot, worktree.path)) {
    problems.push(`${placement.rootId}.1: worktree ${JSON.stringify(worktree)} not kept inside ${workerRoot}`);
  } else if (!existsSync(path.join(worktree.path, 'cluster-notes.txt'))) {
    problems.push(`${placement.rootId}.1: cluster-notes.txt missing from its worktree ${worktree.path}`);
  }
  if (existsSync(path.join(placement.repo, 'cluster-notes.txt')))
    problems.push(`${placement.rootId}.1: its Write reached the main checkout`);
  const markers = existsSync(placement.markers) ? readFileSync(placement.markers, 'utf8').trim().split('\n') : [];
  const rootLine = markers.find((line) => line.startsWith(`root ${placement.rootId} `));
  const leafLine = markers.find((line) => line.startsWith(`leaf ${placement.rootId}.1.1 `));
  if (rootLine !== `root ${placement.rootId} ${placement.repo}`)
    problems.push(`root Bash: ${rootLine ?? 'no line'} in ${placement.markers}`);
  if (!leafLine || !worktree || !leafLine.endsWith(` ${worktree.path}`))
    problems.push(`leaf Bash: ${leafLine ?? 'no line'} (expected its worktree ${worktree?.path})`);
  return problems;
}

/** The approvals of those trees: every Bash and Write of the default permission mode was asked and answered. */
export const approvalsCheck: Check = {
  name: 'approvals asked by the trees and answered through the cluster',
  async run(context) {
    const answered = Number(context.figures.approvals ?? 0);
    // Each tree asks three times: the root's Bash, the worktree child's Write, the leaf's Bash.
    if (context.roots.placement.length !== 2) throw new CheckFailed('the trees did not run');
    if (answered !== 6) throw new CheckFailed(`${answered} approval requests answered, expected 6`);
    return `${answered} requests answered; the approved commands ran (markers checked above)`;
  },
};

/** Advanced visibility on PostgreSQL: list and count agents by the runtime's search attributes. */
export const visibilityCheck: Check = {
  name: 'visibility queries by search attribute (SQL visibility on PostgreSQL)',
  async run(context) {
    const { env } = context;
    const [first, second] = context.roots.placement;
    if (!first || !second) throw new CheckFailed('the trees did not run');
    const info = await env.temporal.workflowService.getClusterInfo({});
    context.figures.persistence = info.persistenceStore ?? '';
    context.figures.visibility = info.visibilityStore ?? '';
    context.figures.serverVersion = info.serverVersion ?? '';
    if (!/postgres/.test(info.visibilityStore ?? '') || !/postgres/.test(info.persistenceStore ?? '')) {
      throw new CheckFailed(
        `the server stores in ${info.persistenceStore} with visibility in ${info.visibilityStore}, not PostgreSQL`,
      );
    }
    const ids = async (query: string) => {
      const found: string[] = [];
      for await (const execution of env.temporal.workflow.list({ query })) found.push(execution.workflowId);
      return found.sort().join(',');
    };
    const expectations: [string, string[]][] = [
      [`RootAgentId = '${first}'`, [first, `${first}.1`, `${first}.1.1`, `${first}.2`]],
      [`RootAgentId = '${first}' AND AgentDepth = 2`, [`${first}.1.1`]],
      [`ParentAgentId = '${second}'`, [`${second}.1`, `${second}.2`]],
      [`AgentType = 'fork' AND RootAgentId IN ('${first}', '${second}')`, [`${first}.2`, `${second}.2`]],
    ];
    for (const [query, expected] of expectations) {
      await retrying(
        query,
        async () => {
          const got = await ids(query);
          if (got !== expected.sort().join(','))
            throw new Error(`listed ${got || 'nothing'}, expected ${expected.join(',')}`);
        },
        30_000,
      );
    }
    const countQuery = `RootAgentId IN ('${first}', '${second}') AND ExecutionStatus = 'Completed'`;
    const count = await env.temporal.workflow.count(countQuery);
    if (count.count !== 8) throw new CheckFailed(`count(${countQuery}) = ${count.count}, expected 8`);
    return `${expectations.length} listings and 1 count matched (${info.visibilityStore})`;
  },
};
