// @slow
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardClient, BoardRefusedError } from '../../src/client/board-client';
import { treeBoardId, type BoardActor, type BoardSnapshot } from '../../src/shared/board/board';
import { createAgentTestEnv, requestBodies, scenario, type AgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import {
  boardWorkerDefinition,
  checkBoardRun,
  layeredDependencies,
  leadTurns,
  readWorkLog,
  workCommand,
} from '../helpers/board-scenario';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentPrompted, bash, spawnInBackground } from '../helpers/scripted-agents';

let env: AgentTestEnv;
let boards: BoardClient;

/** A long-holder work step: marks its start in the workspace, then runs until the test releases it. */
const holderStep = (step: number): string =>
  `touch holder-step-${step}-started && until [ -e holder-step-${step}-release ]; do sleep 0.1; done`;

const dependencies = layeredDependencies(20);

beforeAll(async () => {
  env = await createAgentTestEnv(
    scenario([
      { match: { agentName: 'lead' }, turns: leadTurns(dependencies, 5) },
      agentNamed('quitter-lead', [
        {
          toolUses: [{ name: 'TaskCreate', input: { subject: 'left behind', description: 'claimed, then abandoned' } }],
        },
        {
          toolUses: [spawnInBackground('quitter', 'QUITTER: claim and leave', { subagent_type: 'general-purpose' })],
        },
        { text: 'waiting for the quitter' },
        { text: 'LEAD-SAW: {{last_user_text}}' },
        { text: 'closing' },
      ]),
      agentPrompted('QUITTER', [
        { toolUses: [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }] },
        { text: 'I am leaving this task unfinished.' },
      ]),
      agentNamed('hostile-lead', [
        {
          toolUses: [
            { name: 'TaskCreate', input: { subject: 'ok', description: '' } },
            { name: 'TaskUpdate', input: { taskId: '1', status: 'completed', actor: { kind: 'person', id: 'admin' } } },
            { name: 'TaskCreate', input: { subject: 'x'.repeat(500), description: '' } },
            { name: 'TaskGet', input: { taskId: '../etc/passwd' } },
            { name: 'TaskList', input: { status: 'bogus' } },
            { name: 'TaskUpdate', input: { taskId: null, status: 'in_progress' } },
            { name: 'TaskUpdate', input: { taskId: '1', addBlockedBy: ['1'] } },
            { name: 'TaskGet', input: { taskId: 1 } },
          ],
        },
        { text: 'survived' },
      ]),
      agentNamed('long-holder', [
        { toolUses: [{ name: 'TaskCreate', input: { subject: 'long job', description: 'outlives several runs' } }] },
        { toolUses: [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }] },
        // Each step says it started, then runs until the test releases it (holderStep below).
        ...Array.from({ length: 3 }, (_, index) => ({ toolUses: [bash(holderStep(index + 1))] })),
        { toolUses: [{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed', note: 'held across runs' } }] },
        { text: 'HOLDER-DONE: {{last_tool_result}}' },
      ]),
      { match: { agentType: 'board-worker' }, boardWorker: { workCommand: workCommand(0.05), pollDelayMs: 300 } },
    ]),
  );
  await env.writeFiles({ '.claude/agents/board-worker.md': boardWorkerDefinition });
  boards = new BoardClient(env.temporal.client, env.taskQueue);
});
afterAll(async () => {
  await env?.close();
});

describe('the shared task board', () => {
  it('5 background agents complete a board of 20 tasks with dependencies: each exactly once, in dependency order', async () => {
    const { handle } = await runCompleted(env, {
      prompt: 'Lead the team through the board.',
      name: 'lead',
      limits: { defaultMaxTurns: 200, boardLeaseMs: 30_000 },
    });

    const snapshot = await boards.snapshot(treeBoardId(handle.agentId));
    expect(snapshot.counts).toMatchObject({ completed: 20, pending: 0, in_progress: 0, blocked: 0 });
    expect(snapshot.tasks.map((task) => task.blockedBy)).toEqual(dependencies);
    const workers = Array.from({ length: 5 }, (_, index) => `${handle.agentId}.${index + 1}`);
    for (const task of snapshot.tasks) expect(workers).toContain(task.completedBy);
    expect(snapshot.events.filter((event) => event.kind === 'returned')).toEqual([]);

    const check = checkBoardRun(readWorkLog(env.workspace), snapshot);
    expect(check).toEqual({ completedOnce: 20, doubleDone: 0, doubleClaims: 0, orderViolations: [] });
    // Work was shared, and every worker finished on its own once the board was done.
    expect(new Set(snapshot.tasks.map((task) => task.completedBy)).size).toBeGreaterThan(1);
    for (const worker of workers) {
      const workerResult = await env.client.getAgent(worker).result();
      expect(workerResult.status).toBe('completed');
      expect(workerResult.finalText).toMatch(/^Every task on the board is completed\./);
    }

    // The definition's tools (named as in Claude Code) reached the model, and the lead got them by default.
    const workerRequest = requestBodies(env.modelServer).find(
      (body) =>
        body.tools?.some((tool) => tool.name === 'TaskUpdate') &&
        !body.tools.some((tool) => tool.name === 'TaskCreate'),
    );
    expect(workerRequest?.tools?.map((tool) => tool.name)).toEqual(['Bash', 'TaskList', 'TaskGet', 'TaskUpdate']);
    const description = await env.temporal.client.workflow.getHandle(treeBoardId(handle.agentId)).describe();
    expect(description.status.name).toBe('RUNNING');
  }, 400_000);

  it('an agent that ends holding a claim gives it back at once, and its root is told', async () => {
    const handle = await env.start({
      prompt: 'Lead a quitter.',
      name: 'quitter-lead',
      interactive: { idleTimeoutMs: 60_000 },
    });
    const boardId = treeBoardId(handle.agentId);
    await waitFor(
      async () => (await handle.messages()).some((message) => JSON.stringify(message.content).includes('board-notice')),
      90_000,
      'the board notice at the root',
    );
    const snapshot = await boards.snapshot(boardId);
    expect(snapshot.tasks[0]).toMatchObject({ status: 'pending', returnedCount: 1 });
    expect(snapshot.events.at(-1)).toMatchObject({
      kind: 'returned',
      taskId: '1',
      text: `its owner ${handle.agentId}.1 ended (completed) without completing it`,
    });
    const notice = (await handle.messages())
      .map((message) => JSON.stringify(message.content))
      .find((text) => text.includes('board-notice'));
    expect(notice).toContain(
      `task #1 \\"left behind\\": its owner ${handle.agentId}.1 ended (completed) without completing it`,
    );
    await handle.close();
    expect((await handle.result()).status).toBe('completed');
  }, 200_000);
});

describe('claims across continue-as-new', () => {
  it('keeps renewing a claim in the next run of the agent', async () => {
    // A new run after (almost) every turn. In each of its 3 work steps the test waits until the board has seen the
    // claim renewed, and in the last until more than one lease has passed since the claim: a run that did not carry
    // the claim would not renew it, and the board would return the task. No fixed sleeps; the lease is long enough
    // for a loaded machine (a new run renews one interval, lease/3, after it starts).
    const leaseMs = 30_000;
    const handle = await env.start({
      prompt: 'Hold a task for long.',
      name: 'long-holder',
      limits: { continueAsNewAfterEvents: 20, boardLeaseMs: leaseMs },
    });
    const boardId = treeBoardId(handle.agentId);
    const claimOf = async () => {
      const task = (await boards.snapshot(boardId)).tasks[0];
      if (task?.returnedCount) throw new Error(`the claim ran out: ${JSON.stringify(task)}`);
      return task?.claim;
    };
    const stepRuns: string[] = [];
    for (let step = 1; step <= 3; step += 1) {
      await waitFor(
        () => existsSync(path.join(env.workspace, `holder-step-${step}-started`)),
        90_000,
        `work step ${step}`,
      );
      stepRuns.push((await env.temporal.client.workflow.getHandle(handle.agentId).describe()).runId);
      const seen = new Set<number>();
      await waitFor(
        async () => {
          const claim = await claimOf();
          if (claim) seen.add(claim.heartbeatAtMs);
          return seen.size >= 2 && (step < 3 || (claim !== undefined && claim.heartbeatAtMs - claim.sinceMs > leaseMs));
        },
        120_000,
        `a renewal of the claim in work step ${step}`,
      );
      writeFileSync(path.join(env.workspace, `holder-step-${step}-release`), '');
    }
    const result = await handle.result();
    expect(result.finalText).toMatch(/^HOLDER-DONE: Updated task #1 status, note/);
    const snapshot = await boards.snapshot(boardId);
    expect(snapshot.tasks[0]).toMatchObject({ status: 'completed', note: 'held across runs', returnedCount: 0 });
    // The steps ran in more than one run: the later ones renewed a claim made in an earlier run.
    expect(new Set(stepRuns).size).toBeGreaterThan(1);
    const runs = [];
    for await (const execution of env.temporal.client.workflow.list({ query: `WorkflowId = '${handle.agentId}'` }))
      runs.push(execution);
    expect(runs.length).toBeGreaterThan(2);
  }, 300_000);
});

describe('the task-list tools with hostile input', () => {
  it('answers every bad call with an error the model can act on, and goes on', async () => {
    const handle = await env.start({ prompt: 'Try the tools.', name: 'hostile-lead' });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', finalText: 'survived' });
    const results = (await handle.messages()).flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.flatMap((block) => (block.type === 'tool_result' ? [block] : [])),
    );
    expect(results.map((block) => [block.is_error === true, String(block.content).split('\n')[0]])).toEqual([
      [false, 'Task #1 created successfully: ok'],
      [
        true,
        'InvalidToolInput: TaskUpdate has no field "actor"; its fields are taskId, subject, description, activeForm, status, owner, addBlocks, addBlockedBy, removeBlockedBy, note, metadata.',
      ],
      [true, 'InvalidToolInput: TaskCreate: "subject" has 500 characters; the limit is 200.'],
      [true, 'InvalidToolInput: TaskGet: "taskId" must be a task id such as "3".'],
      [true, 'InvalidToolInput: TaskList: "status" must be one of pending, in_progress, blocked, completed.'],
      [true, 'InvalidToolInput: TaskUpdate: "taskId" is required (a task id such as "3").'],
      [true, 'DependencyCycle: task #1 cannot wait for itself.'],
      [false, 'Task #1: ok'],
    ]);
    expect((await boards.snapshot(treeBoardId(handle.agentId))).tasks).toEqual([
      expect.objectContaining({ id: '1', status: 'pending' }),
    ]);
  });
});

describe('board updates', () => {
  const config = (name: string) => ({ boardId: `board:name:${name}`, name, leaseMs: 60_000 });
  const agent = (index: number): BoardActor => ({ kind: 'agent', id: `claimer-${index}`, rootAgentId: 'claimers' });

  it('lets exactly one of many simultaneous claims win', async () => {
    const board = config(`race-${Date.now()}`);
    await boards.create(board, { actor: agent(0), subject: 'contested', description: '' });
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        boards.update(board.boardId, { actor: agent(index + 1), taskId: '1', status: 'in_progress' }),
      ),
    );
    const winners = attempts.flatMap((attempt, index) => (attempt.status === 'fulfilled' ? [index + 1] : []));
    expect(winners).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') {
        expect(attempt.reason).toBeInstanceOf(BoardRefusedError);
        expect(String(attempt.reason.message)).toMatch(`TaskClaimed: task #1 is in progress by claimer-${winners[0]}`);
      }
    }
    const snapshot = await boards.snapshot(board.boardId);
    expect(snapshot.tasks[0]).toMatchObject({ status: 'in_progress', owner: `claimer-${winners[0]}` });
    expect(snapshot.events.filter((event) => event.kind === 'claimed')).toHaveLength(1);
  });

  it('refuses malformed and impossible requests to the caller and keeps working', async () => {
    const board = config(`hostile-${Date.now()}`);
    await boards.create(board, { actor: agent(0), subject: 'a', description: '' });
    const handle = env.temporal.client.workflow.getHandle(board.boardId);
    // What the raw update (as `temporal workflow update execute` sends it) is refused with.
    const refusal = async (name: string, input: unknown): Promise<string> => {
      const error = await handle.executeUpdate(name, { args: [input] }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      return String((error as WorkflowUpdateFailedError).cause?.message);
    };
    for (const input of [null, 42, 'text', []])
      expect(await refusal('updateTask', input)).toBe('InvalidBoardRequest: the request must be a JSON object.');
    expect(await refusal('updateTask', { actor: agent(1) })).toBe(
      'InvalidBoardRequest: "taskId" is required (a task id such as "3").',
    );
    expect(await refusal('updateTask', { actor: agent(1), taskId: '1', status: 'done' })).toMatch(
      /^InvalidBoardRequest: "status" must be one of/,
    );
    expect(await refusal('updateTask', { actor: agent(1), taskId: '1', subject: 'x'.repeat(10_000) })).toMatch(
      /"subject" has 10000 characters; the limit is 200/,
    );
    expect(await refusal('createTask', { actor: { kind: 'robot', id: 'x' }, subject: 's', description: '' })).toMatch(
      /actor: "kind" must be one of agent, person/,
    );
    await expect(boards.update(board.boardId, { actor: agent(1), taskId: '1', addBlockedBy: ['1'] })).rejects.toThrow(
      /DependencyCycle/,
    );
    await expect(boards.update(board.boardId, { actor: agent(1), taskId: '7', status: 'completed' })).rejects.toThrow(
      /TaskNotFound: task #7/,
    );
    for (const signal of [null, 7, { agentId: 12 }, { agentId: 'x'.repeat(5_000) }])
      await handle.signal('boardHeartbeat', signal);
    await handle.signal('boardOwnerEnded', null);

    const done = await boards.update(board.boardId, {
      actor: agent(1),
      taskId: '1',
      status: 'completed',
      note: 'still fine',
    });
    expect(done.task).toMatchObject({ status: 'completed', note: 'still fine', completedBy: 'claimer-1' });
    const history = await handle.fetchHistory();
    expect(history.events?.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  });

  it('continues-as-new with its tasks, claims and events', async () => {
    const board = config(`long-${Date.now()}`);
    const handle = await env.temporal.client.workflow.start('boardWorkflow', {
      taskQueue: env.taskQueue,
      workflowId: board.boardId,
      args: [{ config: board, continueAsNewAfterEvents: 40 }],
    });
    for (let index = 1; index <= 12; index++)
      await boards.create(board, {
        actor: agent(0),
        subject: `t${index}`,
        description: '',
        ...(index > 1 ? { blockedBy: [String(index - 1)] } : {}),
      });
    await boards.update(board.boardId, { actor: agent(1), taskId: '1', status: 'in_progress' });
    let snapshot: BoardSnapshot | undefined;
    await waitFor(
      async () => {
        snapshot = await boards.snapshot(board.boardId);
        return snapshot.continuedRuns > 0;
      },
      30_000,
      'the board to continue-as-new',
    );
    expect(snapshot!.tasks).toHaveLength(12);
    expect(snapshot!.tasks[0]).toMatchObject({ status: 'in_progress', owner: 'claimer-1' });
    expect(snapshot!.tasks[11]!.blockedBy).toEqual(['11']);
    expect(snapshot!.events.filter((event) => event.kind === 'created')).toHaveLength(12);
    const firstRun = await env.temporal.client.workflow
      .getHandle(board.boardId, handle.firstExecutionRunId)
      .fetchHistory();
    expect(firstRun.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // The next run still takes changes and keeps ids going.
    expect((await boards.create(board, { actor: agent(0), subject: 'after', description: '' })).taskId).toBe('13');
  });
});
