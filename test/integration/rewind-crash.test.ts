// @slow
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentHandle } from '../../src/client/client';
import { scenario } from '../helpers/agent-env';
import { waitFor, type ChildWorker } from '../helpers/child-worker';
import { git } from '../helpers/rewind-workspace';
import { useCrashHarness } from '../helpers/crash-harness';
import { agentWithId, bash } from '../helpers/scripted-agents';

// "A worker killed during a fork or a rewind leaves either the old state or the new one, never a mix" (issue 49).
// Each case kills the worker while git is writing or staging files: the repository's `*.dat` files pass through a
// slow filter (as git-lfs's can be) that logs each file, so the kill lands mid-restore or mid-checkpoint every time.

const crash = useCrashHarness();

/** Files the agents write: enough that the slow filter keeps git busy for a few seconds. */
const fileCount = 8;
/** The kill comes once the filter has seen this many files: the work is part done. */
const killAfterFiles = 3;
/** How long anything may take to settle after the new worker starts. */
const settleMs = 30_000;

/** The workspace's folder of flag files, git-ignored. */
const flagsDir = '.flags';

/** How the worker dies: its process alone (its git commands finish as orphans), or with them (a container's end). */
const killModes = [
  { label: 'the worker process', tree: false },
  { label: 'the worker and the git commands it started', tree: true },
];

/** One case's workspace (a git repository), its flags, the slow filter and its log (beside it), and names. */
function prepareCase(name: string, filterOn: 'smudge' | 'clean') {
  const { workspace, taskQueue, client } = crash.prepare(name);
  // The filter runs in the worker's git, outside the sandbox: its script and log live outside the workspace.
  const filterDir = mkdtempSync(path.join(os.tmpdir(), `${name}-filter-`));
  const log = path.join(filterDir, 'filter.log');
  const filter = path.join(filterDir, 'slow-filter.sh');
  writeFileSync(filter, `#!/bin/sh\necho "$1" >> '${log}'\nsleep 0.2\nexec cat\n`);
  chmodSync(filter, 0o755);
  git(workspace, 'init', '-q', '-b', 'main');
  // Flags the test writes and the sandboxed Bash reads (it sees no other /tmp), ignored by git and so by checkpoints.
  writeFileSync(path.join(workspace, '.git', 'info', 'exclude'), `${flagsDir}/\n`);
  mkdirSync(path.join(workspace, flagsDir));
  // smudge: git writing a file (a restore); clean: git staging one (a checkpoint).
  git(workspace, 'config', `filter.slow.${filterOn}`, `'${filter}' %f`);
  writeFileSync(path.join(workspace, '.gitattributes'), '*.dat filter=slow\n');
  writeFileSync(path.join(workspace, 'README.md'), 'base\n');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'base');
  const stamp = Date.now().toString(36);
  return {
    workspace,
    taskQueue,
    client,
    agentId: `${name}-${stamp}`,
    flag: (flagName: string) => path.join(workspace, flagsDir, flagName),
    filteredFiles: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0),
  };
}

/** Bash writing `fileCount` files of version `version`. */
const writeFiles = (version: string) =>
  bash(`for i in $(seq -f %02g 1 ${fileCount}); do echo "${version} $i" > d$i.dat; done`);

/** Bash changing every file, deleting one and adding one: a restore has writes, a deletion and a re-creation to do. */
const changeFiles = (unless: string) =>
  bash(
    `test -f ${unless} || { for i in $(seq -f %02g 1 ${fileCount}); do echo "v2 $i" > d$i.dat; done; rm d01.dat; echo extra > extra.txt; }`,
  );

/** Resolves once the agent has recorded `boundaries` boundaries and runs Bash (the wait loop the rewind or fork finds). */
function waitingAfter(agent: AgentHandle, boundaries: number): Promise<void> {
  return waitFor(
    async () => {
      if ((await agent.turns()).boundaries.length < boundaries) return false;
      const description = await crash.temporal.client.workflow.getHandle(agent.agentId).describe();
      return (description.raw.pendingActivities ?? []).some((activity) => activity.activityType?.name === 'Bash');
    },
    30_000,
    `the wait loop of ${agent.agentId}`,
  );
}

/** Bash waiting (bounded) for a flag file. */
const waitLoop = (flag: string) => bash(`for i in $(seq 1 250); do test -f ${flag} && break; sleep 0.2; done`);

/** The files git sees in a work tree (`.git`, the runtime's `.subagents` and the flags aside), by relative path. */
function filesIn(root: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(path.join(root, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (['.git', '.subagents', flagsDir].includes(relative)) continue;
    if (entry.isDirectory()) Object.assign(files, filesIn(root, relative));
    else files[relative] = readFileSync(path.join(root, relative), 'utf8');
  }
  return files;
}

/** The files of a checkpoint's tree, read from the repository's objects. */
function filesOfTree(repository: string, tree: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const line of git(repository, 'ls-tree', '-r', tree).split('\n').filter(Boolean)) {
    const [meta, name] = line.split('\t') as [string, string];
    files[name] = git(repository, 'cat-file', 'blob', meta.split(' ')[2]!);
  }
  return files;
}

/** The checkpoint refs of a repository: `<ref> <commit>`, sorted. */
function checkpointRefs(repository: string): string[] {
  return git(repository, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/subagents/checkpoints/')
    .split('\n')
    .filter(Boolean)
    .sort();
}

/** The linked worktrees of a repository (its main checkout aside). */
function linkedWorktrees(repository: string): string[] {
  return git(repository, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((worktree) => worktree !== repository);
}

/** The bodies of an agent's successful model requests, in order. */
function requestsOf(agentId: string): { system: unknown; tools: unknown; messages: unknown[] }[] {
  return crash.modelServer
    .requests()
    .filter((request) => request.status === 200 && request.headers['x-subagents-agent-id'] === agentId)
    .map((request) => JSON.parse(request.rawBody) as { system: unknown; tools: unknown; messages: unknown[] });
}

function startAgent(prepared: ReturnType<typeof prepareCase>, prompt: string): Promise<AgentHandle> {
  return prepared.client.startAgent({
    agentId: prepared.agentId,
    prompt,
    cwd: prepared.workspace,
    model: 'claude-test-tiny',
    permissionMode: 'bypassPermissions',
    limits: { forking: false },
  });
}

/** The pids of a process's descendants (its git commands, their filters, its Bash commands). */
function descendantsOf(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim())
      .map(Number);
  } catch {
    // ps exits 1 when there are none.
  }
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

/** SIGKILL of a worker and, with `tree`, of every process it started, all at once as a cgroup's end does. */
async function killWorker(worker: ChildWorker, tree: boolean): Promise<void> {
  const descendants = tree ? descendantsOf(worker.process.pid!) : [];
  worker.process.kill('SIGKILL');
  for (const pid of descendants) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await worker.kill('SIGKILL');
}

/** What the server holds of a workflow: its status, pending activities, failed tasks and activities. */
async function diagnosis(workflowId: string): Promise<string> {
  const handle = crash.temporal.client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const events = (await handle.fetchHistory()).events ?? [];
  const pending = (description.raw.pendingActivities ?? []).map(
    (activity) =>
      `  pending ${activity.activityType?.name} attempt ${activity.attempt}: ${activity.lastFailure?.message ?? ''}`,
  );
  const failures = events.flatMap((event) => {
    const task = event.workflowTaskFailedEventAttributes?.failure;
    // Where in our code the task failed: the first frame under src/.
    const frame = task?.stackTrace?.split('\n').find((line) => line.includes('/src/'));
    if (task) return [`  #${event.eventId} workflow task failed: ${task.message} ${frame?.trim() ?? ''}`];
    const activity = event.activityTaskFailedEventAttributes?.failure;
    return activity ? [`  #${event.eventId} activity failed: ${activity.message?.split('\n')[0]}`] : [];
  });
  return [`${workflowId}: ${description.status.name}, ${events.length} events`, ...pending, ...failures].join('\n');
}

/** The promise's value, or a failure naming what did not settle and what the server holds of the workflow. */
async function settled<T>(promise: Promise<T>, what: string, workflowId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), settleMs)));
  try {
    const outcome = await Promise.race([promise, late]);
    if (outcome !== 'late') return outcome;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(
    `${what} did not settle within ${settleMs / 1000} s of the new worker:\n${await diagnosis(workflowId)}`,
  );
}

/** How many times an activity of this type was scheduled in a workflow's history (a server retry is not a new one). */
async function scheduledActivities(workflowId: string, type: string): Promise<number> {
  const events = (await crash.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === type).length;
}

/** How many updates a workflow's history accepted and completed. */
async function updateEvents(workflowId: string): Promise<{ accepted: number; completed: number }> {
  const events = (await crash.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    accepted: events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length,
    completed: events.filter((event) => event.workflowExecutionUpdateCompletedEventAttributes).length,
  };
}

describe.each(killModes)('SIGKILL of $label', ({ tree }) => {
  it('during a rewind --files of a running agent: the files are the checkpoint exactly, the conversation is at the turn', async () => {
    const prepared = prepareCase('rewind-crash', 'smudge');
    const { workspace, taskQueue, agentId } = prepared;
    const [skip, go] = [prepared.flag('skip'), prepared.flag('go')];
    crash.modelServer.setBehaviour(
      scenario([
        agentWithId(agentId, [
          { toolUses: [writeFiles('v1')] },
          { toolUses: [changeFiles(skip)] },
          { toolUses: [waitLoop(go)] },
          { text: 'REWOUND-DONE' },
        ]),
      ]),
    );
    let worker = await crash.startWorker(taskQueue);
    const agent = await startAgent(prepared, 'write files');
    await waitingAfter(agent, 3);
    const before = (await agent.turns()).boundaries;
    expect(before.map((boundary) => boundary.turn)).toEqual([0, 1, 2]);
    const checkpoint = before[1]!.checkpoint!;
    const expected = filesOfTree(workspace, checkpoint.tree);
    const latest = filesOfTree(workspace, before[2]!.checkpoint!.tree);
    expect(expected['d01.dat']).toBe('v1 01\n');
    expect(filesIn(workspace)).toEqual(latest);
    // The turn the rewind returns to, when the model is asked again, changes nothing this time.
    writeFileSync(skip, '');

    const rewinding = agent.rewind({ turn: 1, files: true });
    rewinding.catch(() => undefined);
    await waitFor(() => prepared.filteredFiles() >= killAfterFiles, 30_000, 'the restore to be writing files');
    await killWorker(worker, tree);
    // Killed mid-restore: at this moment the workspace holds neither turn 2's files nor turn 1's.
    const atKill = filesIn(workspace);
    expect(atKill).not.toEqual(latest);
    expect(atKill).not.toEqual(expected);
    worker = await crash.startWorker(taskQueue);

    const outcome = await settled(rewinding, 'the rewind', agentId);
    expect(outcome.mode).toBe('in-place');
    if (outcome.mode !== 'in-place') return;
    expect(outcome.ack).toMatchObject({ turn: 1, droppedTurns: 2, stoppedChildren: [] });
    expect(filesIn(workspace)).toEqual(expected);
    // One update, accepted and answered once; one restore, retried by the server (not scheduled again).
    expect(await updateEvents(agentId)).toEqual({ accepted: 1, completed: 1 });
    expect(await scheduledActivities(agentId, 'restoreCheckpoint')).toBe(1);

    writeFileSync(go, '');
    const result = await settled(agent.result(), 'the rewound agent', agentId);
    expect(result).toMatchObject({ status: 'completed', finalText: 'REWOUND-DONE' });
    // The first request after the rewind is the one made at turn 1 before it, byte for byte.
    const requests = requestsOf(agentId);
    expect(requests).toHaveLength(6);
    expect(JSON.stringify(requests[3]!.messages)).toBe(JSON.stringify(requests[1]!.messages));
    const after = (await agent.turns()).boundaries;
    expect(after.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3, 4]);
    // A boundary's own atMs is shown, not compared: a replay may read a later time (src/workflows/runtime/clock.ts).
    const withoutTime = (boundaries: typeof before) => boundaries.map(({ atMs: _atMs, ...boundary }) => boundary);
    expect(withoutTime(after.slice(0, 2))).toEqual(withoutTime(before.slice(0, 2)));
    // The turns after the rewind changed nothing: no new checkpoint, the files are still turn 1's.
    expect(after.slice(2).every((boundary) => boundary.checkpoint === undefined)).toBe(true);
    expect(filesIn(workspace)).toEqual(expected);
  }, 120_000);

  it("during a fork's start into a worktree: the fork has the source's prefix and files exactly, the source is untouched", async () => {
    const prepared = prepareCase('fork-crash', 'smudge');
    const { workspace, taskQueue, agentId } = prepared;
    const forkId = `${agentId}-fork`;
    const go = prepared.flag('go');
    crash.modelServer.setBehaviour(
      scenario([
        agentWithId(agentId, [
          { toolUses: [writeFiles('v1')] },
          { toolUses: [changeFiles(prepared.flag('never'))] },
          { toolUses: [waitLoop(go)] },
          { text: 'SOURCE-DONE' },
        ]),
        agentWithId(forkId, [{ text: 'unused' }, { toolUses: [bash('cat d*.dat')] }, { text: 'FORK-DONE' }]),
      ]),
    );
    let worker = await crash.startWorker(taskQueue);
    const source = await startAgent(prepared, 'write files');
    await waitingAfter(source, 3);
    const before = (await source.turns()).boundaries;
    expect(before.map((boundary) => boundary.turn)).toEqual([0, 1, 2]);
    const sourceFiles = filesIn(workspace);

    const fork = await source.fork({ turn: 1, agentId: forkId, worktree: true });
    expect(fork.placement).toBe('root');
    await waitFor(() => prepared.filteredFiles() >= killAfterFiles, 30_000, "the fork's restore to be writing files");
    await killWorker(worker, tree);
    // Killed mid-restore: the fork's new worktree holds neither its first checkout nor turn 1's files.
    const forkTree = linkedWorktrees(workspace);
    expect(forkTree).toHaveLength(1);
    const atKill = filesIn(forkTree[0]!);
    expect(atKill).not.toEqual(filesOfTree(workspace, 'HEAD'));
    expect(atKill).not.toEqual(filesOfTree(workspace, before[1]!.checkpoint!.tree));
    worker = await crash.startWorker(taskQueue);

    const forked = await settled(fork.handle.result(), 'the fork', forkId);
    expect(forked).toMatchObject({ status: 'completed', finalText: 'FORK-DONE' });
    // Its first request is the source's at turn 1, byte for byte: system, tools and messages.
    const [first] = requestsOf(forkId);
    const sourceRequest = requestsOf(agentId)[1]!;
    expect(JSON.stringify(first!.system)).toBe(JSON.stringify(sourceRequest.system));
    expect(JSON.stringify(first!.tools)).toBe(JSON.stringify(sourceRequest.tools));
    expect(JSON.stringify(first!.messages)).toBe(JSON.stringify(sourceRequest.messages));
    // Its worktree holds turn 1's files exactly, as its own Bash saw them.
    const worktree = forked.worktree!.path;
    expect(filesIn(worktree)).toEqual(filesOfTree(workspace, before[1]!.checkpoint!.tree));
    expect(JSON.stringify(requestsOf(forkId)[1]!.messages.at(-1))).toContain('v1 02');
    // Its boundaries are the source's up to turn 1, then its own.
    const forkTurns = (await fork.handle.turns()).boundaries;
    expect(forkTurns.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3]);
    expect(forkTurns.slice(0, 2).map((boundary) => boundary.hash)).toEqual(before.slice(0, 2).map((b) => b.hash));
    expect(await scheduledActivities(forkId, 'restoreCheckpoint')).toBe(1);

    // The source: its files and its boundaries as they were; its turn cut by the crash goes on to its answer.
    expect(filesIn(workspace)).toEqual(sourceFiles);
    writeFileSync(go, '');
    expect(await settled(source.result(), 'the source', agentId)).toMatchObject({ finalText: 'SOURCE-DONE' });
    const sourceAfter = (await source.turns()).boundaries;
    expect(sourceAfter.slice(0, 3)).toEqual(before);
    expect(sourceAfter.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3, 4]);
  }, 120_000);

  it("while a turn end is checkpointed: each boundary once, the user's branch and index untouched, rewind --files works", async () => {
    const prepared = prepareCase('checkpoint-crash', 'clean');
    const { workspace, taskQueue, agentId } = prepared;
    const skip = prepared.flag('skip');
    // The user's own work in progress: a staged change and an untracked file.
    writeFileSync(path.join(workspace, 'README.md'), 'base\nstaged by the user\n');
    git(workspace, 'add', 'README.md');
    writeFileSync(path.join(workspace, 'notes.txt'), 'the user\n');
    const userState = () => ({
      log: git(workspace, 'log', '--format=%H %s', '--branches'),
      branches: git(workspace, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads'),
      staged: git(workspace, 'diff', '--cached', '--name-status'),
      head: git(workspace, 'rev-parse', 'HEAD'),
    });
    const userBefore = userState();
    crash.modelServer.setBehaviour(
      scenario([
        agentWithId(agentId, [
          { toolUses: [writeFiles('v1')] },
          { toolUses: [changeFiles(skip)] },
          { text: 'CHECKPOINTED-DONE' },
        ]),
      ]),
    );
    let worker = await crash.startWorker(taskQueue);
    const agent = await startAgent(prepared, 'write files');
    // The clean filter runs when the end of turn 1 stages the new files: the checkpoint is being taken.
    await waitFor(() => prepared.filteredFiles() >= killAfterFiles, 30_000, 'the checkpoint of turn 1 to be staging');
    await killWorker(worker, tree);
    // Killed before turn 1's checkpoint was recorded: only the opening's ref exists.
    expect(checkpointRefs(workspace)).toHaveLength(1);
    worker = await crash.startWorker(taskQueue);

    const result = await settled(agent.result(), 'the agent', agentId);
    expect(result).toMatchObject({ status: 'completed', finalText: 'CHECKPOINTED-DONE' });
    const snapshot = await agent.turns();
    expect(snapshot.checkpointsUnavailable).toBeUndefined();
    const boundaries = snapshot.boundaries;
    expect(boundaries.map((boundary) => boundary.turn)).toEqual([0, 1, 2, 3]);
    expect(boundaries.map((boundary) => boundary.checkpoint?.turn)).toEqual([0, 1, 2, undefined]);
    // One ref per checkpoint, each the boundary's; none left over from the killed attempt.
    expect(checkpointRefs(workspace)).toEqual(
      boundaries
        .flatMap((boundary) =>
          boundary.checkpoint ? [`${boundary.checkpoint.ref} ${boundary.checkpoint.commit}`] : [],
        )
        .sort(),
    );
    expect(filesOfTree(workspace, boundaries[1]!.checkpoint!.tree)['d01.dat']).toBe('v1 01\n');
    // The user's branch, HEAD and index as they were; git status shows the user's work and the agent's files only.
    expect(userState()).toEqual(userBefore);
    const status = git(workspace, 'status', '--porcelain').split('\n').filter(Boolean).sort();
    expect(status).toEqual(
      [
        'M  README.md',
        '?? extra.txt',
        '?? notes.txt',
        ...Array.from({ length: fileCount - 1 }, (_, i) => `?? d${String(i + 2).padStart(2, '0')}.dat`),
      ].sort(),
    );

    // A later rewind --files (a new run: the agent has finished) returns the files to turn 1's checkpoint.
    writeFileSync(skip, '');
    const outcome = await agent.rewind({ turn: 1, files: true });
    expect(outcome.mode).toBe('new-run');
    expect(await settled(outcome.handle.result(), 'the rewound run', agentId)).toMatchObject({
      finalText: 'CHECKPOINTED-DONE',
    });
    expect(filesIn(workspace)).toEqual(filesOfTree(workspace, boundaries[1]!.checkpoint!.tree));
    expect(userState()).toEqual(userBefore);
  }, 120_000);
});
