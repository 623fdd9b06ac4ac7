// @slow
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, it } from 'vitest';
import { BoardClient } from '../../src/client/board-client';
import { SubagentsClient } from '../../src/client/client';
import { namedBoardId } from '../../src/shared/board/board';
import { boardWorkerDefinition, checkBoardRun, readWorkLog, workCommand } from '../helpers/board-scenario';
import { waitFor } from '../helpers/child-worker';
import { useCrashHarness } from '../helpers/crash-harness';
import { recordHistory } from '../helpers/histories';
import { createTestWorker, uniqueTaskQueue } from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { agentWithId, spawnInBackground } from '../helpers/scripted-agents';

const crash = useCrashHarness();
let survivor: Worker | undefined;
let surviving: Promise<void> | undefined;

// Registered after the harness, so it runs first: the in-process worker stops before the servers close.
afterAll(async () => {
  survivor?.shutdown();
  await surviving;
});

describe('a worker killed while its agent holds a claim', () => {
  it('loses the claim after the lease: another agent on another worker completes the task, and the root is told', async () => {
    const stamp = Date.now().toString(36);
    const [rootA, rootB, boardName] = [`crash-a-${stamp}`, `crash-b-${stamp}`, `crash-${stamp}`];
    const workerA = `${rootA}.1`;
    const workerB = `${rootB}.1`;
    const spawnWorker = {
      toolUses: [spawnInBackground('board worker', 'Work the board.', { subagent_type: 'board-worker' })],
    };
    crash.modelServer.setBehaviour(
      scenario([
        agentWithId(rootA, [
          spawnWorker,
          { text: 'waiting for my worker' },
          ...Array.from({ length: 6 }, () => ({ text: 'ROOT-A-SAW: {{last_user_text}}' })),
        ]),
        agentWithId(rootB, [spawnWorker, { text: 'waiting for my worker' }, { text: 'done' }, { text: 'done' }]),
        // The worker on the doomed queue works slowly, so the kill finds it holding its claim.
        { match: { agentId: workerA }, boardWorker: { workCommand: workCommand(60), pollDelayMs: 300 } },
        // Long enough that the runtime renews the claim a few times while the work runs.
        { match: { agentType: 'board-worker' }, boardWorker: { workCommand: workCommand(2.5), pollDelayMs: 300 } },
      ]),
    );
    const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-board-crash-')));
    await mkdir(path.join(workspace, '.claude', 'agents'), { recursive: true });
    await writeFile(path.join(workspace, '.claude', 'agents', 'board-worker.md'), boardWorkerDefinition);

    // Two hosts: queue A (a worker process we kill) and queue B (this process), sharing one named board on B.
    const [queueA, queueB] = [uniqueTaskQueue('board-a'), uniqueTaskQueue('board-b')];
    survivor = await createTestWorker(crash.temporal, { taskQueue: queueB, modelBaseUrl: crash.modelServer.url });
    surviving = survivor.run();
    await crash.startWorker(queueA);
    const boards = new BoardClient(crash.temporal.client, queueB);
    const leaseMs = 6_000;
    const config = { boardId: namedBoardId(boardName), name: boardName, leaseMs };
    const person = { kind: 'person' as const, id: 'test' };
    await boards.create(config, { actor: person, subject: 'alpha', description: 'first' });
    await boards.create(config, { actor: person, subject: 'beta', description: 'after alpha', blockedBy: ['1'] });

    const options = {
      prompt: 'Run a board worker.',
      cwd: workspace,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions' as const,
      taskBoard: boardName,
      limits: { forking: false, defaultMaxTurns: 200 },
    };
    const handleA = await new SubagentsClient(crash.temporal.client, queueA).startAgent({ ...options, agentId: rootA });
    await waitFor(
      () =>
        existsSync(path.join(workspace, 'work.log')) &&
        readFileSync(path.join(workspace, 'work.log'), 'utf8').includes(`start 1 ${workerA}`),
      90_000,
      'the first worker to start on task #1',
    );
    expect((await boards.snapshot(config.boardId)).tasks[0]).toMatchObject({
      status: 'in_progress',
      claim: { agentId: workerA },
    });
    await crash.workers[0]!.kill('SIGKILL');

    const handleB = await new SubagentsClient(crash.temporal.client, queueB).startAgent({ ...options, agentId: rootB });
    expect((await handleB.result()).status).toBe('completed');
    const afterKill = await boards.snapshot(config.boardId);
    expect(afterKill.tasks.map((task) => [task.status, task.completedBy, task.returnedCount])).toEqual([
      ['completed', workerB, 1],
      ['completed', workerB, 0],
    ]);
    const returned = afterKill.events.find((event) => event.kind === 'returned');
    expect(returned).toMatchObject({ taskId: '1', by: 'board' });
    expect(returned?.text).toMatch(
      new RegExp(`^its owner ${workerA} sent no heartbeat for [\\d.]+s \\(the lease is 6s\\)$`),
    );

    // The host comes back: the first worker learns it lost the task and stops; its root was told.
    await crash.startWorker(queueA);
    expect((await handleA.result()).status).toBe('completed');
    const rootText = JSON.stringify(await handleA.messages());
    expect(rootText).toContain(`<board-notice board=\\"${config.boardId}\\">`);
    expect(rootText).toContain(`task #1 \\"alpha\\": its owner ${workerA} sent no heartbeat`);
    const workerText = JSON.stringify(
      await new SubagentsClient(crash.temporal.client, queueA).getAgent(workerA).messages(),
    );
    expect(workerText).toMatch(/TaskCompleted: task #1 was completed by crash-b-[a-z0-9]+\.1/);
    const resultA = await new SubagentsClient(crash.temporal.client, queueA).getAgent(workerA).result();
    expect(resultA.finalText).toBe('Every task on the board is completed. I completed: none.');

    const check = checkBoardRun(readWorkLog(workspace), await boards.snapshot(config.boardId));
    expect(check).toEqual({ completedOnce: 2, doubleDone: 0, doubleClaims: 0, orderViolations: [] });
    // The surviving worker's run takes the task-board path (claims, heartbeats, completion); the board's run
    // holds a lease running out, returned claims and the notices it sent.
    await recordHistory(crash.temporal.client, workerB, 'board-worker-heartbeats');
    await recordHistory(crash.temporal.client, config.boardId, 'board-lease-expired');
  }, 400_000);
});
