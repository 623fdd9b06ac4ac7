// npm run bench:board — 5 background agents on two workers share a board of 20 tasks; one worker is SIGKILLed while its agents hold claims.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { BoardClient } from '../src/client/board-client';
import { SubagentsClient } from '../src/client/client';
import { startDevServer } from '../src/dev/dev-server';
import { startModelServer, type Turn } from '../src/model-server/server';
import { namedBoardId } from '../src/shared/board/board';
import { createAgentWorker, workflowBundlerOptions, workflowsPath } from '../src/worker/worker';
import {
  boardWorkerDefinition,
  checkBoardRun,
  layeredDependencies,
  readWorkLog,
  workCommand,
} from '../test/helpers/board-scenario';
import { spawnWorkerProcess } from '../test/helpers/spawn-worker-process';
import { waitFor, withTimeout } from './helpers/wait';

const leaseMs = Number(process.env.BENCH_LEASE_MS ?? 5_000);
const tasks = 20;
const doomedWorkers = 2;
const survivingWorkers = 3;
const [queueA, queueB] = ['bench-board-a', 'bench-board-b'];
const rootA = 'bench-board-root-a';
const rootB = 'bench-board-root-b';
const boardName = 'bench';
const doomed = Array.from({ length: doomedWorkers }, (_, index) => `${rootA}.${index + 1}`);

const spawnWorkers = (count: number): Turn[] => [
  {
    toolUses: Array.from({ length: count }, (_, index) => ({
      name: 'Agent',
      input: {
        description: `board worker ${index + 1}`,
        prompt: 'Work the board.',
        subagent_type: 'board-worker',
        run_in_background: true,
      },
    })),
  },
  ...Array.from({ length: count + 6 }, (): Turn => ({ text: 'noted' })),
];

Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
});
const directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-board-')));
const workspace = path.join(directory, 'workspace');
mkdirSync(path.join(workspace, '.claude', 'agents'), { recursive: true });
writeFileSync(path.join(workspace, '.claude', 'agents', 'board-worker.md'), boardWorkerDefinition);
const server = await startDevServer({ port: 0, headless: true });
const modelServer = await startModelServer({
  port: 0,
  behaviour: {
    kind: 'scripted',
    scenario: {
      agents: [
        { match: { agentId: rootA }, turns: spawnWorkers(doomedWorkers) },
        { match: { agentId: rootB }, turns: spawnWorkers(survivingWorkers) },
        // The doomed host's agents work slowly, so the kill finds them holding claims.
        ...doomed.map((agentId) => ({
          match: { agentId },
          boardWorker: { workCommand: workCommand(120), pollDelayMs: 300 },
        })),
        { match: { agentType: 'board-worker' }, boardWorker: { workCommand: workCommand(0.1), pollDelayMs: 300 } },
      ],
    },
  },
});
const bundlePath = path.join(directory, 'workflow-bundle.js');
writeFileSync(
  bundlePath,
  (await bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions, logger: new DefaultLogger('WARN') })).code,
);
const nativeConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const temporal = new Client({ connection, namespace: 'default' });
const survivor = await createAgentWorker({
  connection: nativeConnection,
  client: temporal,
  namespace: 'default',
  taskQueue: queueB,
  anthropic: new Anthropic({ apiKey: 'bench', baseURL: modelServer.url, maxRetries: 0 }),
  workflowBundle: { codePath: bundlePath },
});
const surviving = survivor.run();
const childOptions = { address: server.address, taskQueue: queueA, modelBaseUrl: modelServer.url, bundlePath };
const children = [await spawnWorkerProcess(childOptions)];

try {
  const boards = new BoardClient(temporal, queueB);
  const config = { boardId: namedBoardId(boardName), name: boardName, leaseMs };
  const dependencies = layeredDependencies(tasks);
  for (const [index, blockedBy] of dependencies.entries()) {
    await boards.create(config, {
      actor: { kind: 'person', id: 'bench' },
      subject: `step ${index + 1}`,
      description: '',
      ...(blockedBy.length > 0 ? { blockedBy } : {}),
    });
  }
  const options = {
    prompt: 'Run board workers.',
    cwd: workspace,
    model: 'claude-test-tiny',
    permissionMode: 'bypassPermissions' as const,
    taskBoard: boardName,
    limits: { forking: false, defaultMaxTurns: 300 },
  };
  const startedAt = Date.now();
  const handleA = await new SubagentsClient(temporal, queueA).startAgent({ ...options, agentId: rootA });
  const handleB = await new SubagentsClient(temporal, queueB).startAgent({ ...options, agentId: rootB });

  const workLog = () =>
    existsSync(path.join(workspace, 'work.log')) ? readFileSync(path.join(workspace, 'work.log'), 'utf8') : '';
  await waitFor(
    () => doomed.every((agentId) => workLog().includes(` ${agentId}\n`)),
    180_000,
    'both agents of the doomed worker to hold a claim',
    200,
  );
  const held = (await boards.snapshot(config.boardId)).tasks.filter(
    (task) => task.status === 'in_progress' && doomed.includes(task.claim?.agentId ?? ''),
  );
  const killedAt = Date.now();
  await children[0]!.kill('SIGKILL');

  await withTimeout(handleB.result(), 600_000, 'the surviving tree to finish');
  const finished = await boards.snapshot(config.boardId);
  const allDoneAt = Math.max(...finished.tasks.map((task) => task.completedAtMs ?? Number.NaN));
  children.push(await spawnWorkerProcess(childOptions));
  const resultA = await withTimeout(handleA.result(), 600_000, 'the doomed tree to finish after its worker came back');
  const snapshot = await boards.snapshot(config.boardId);

  const reclaimed = held.filter((task) => {
    const now = snapshot.tasks.find((candidate) => candidate.id === task.id);
    return now?.status === 'completed' && !doomed.includes(now.completedBy ?? '') && now.returnedCount > 0;
  });
  const check = checkBoardRun(readWorkLog(workspace), snapshot);
  const returned = snapshot.events.filter((event) => event.kind === 'returned');
  const byAgent = new Map<string, number>();
  for (const task of snapshot.tasks)
    byAgent.set(task.completedBy ?? '(none)', (byAgent.get(task.completedBy ?? '(none)') ?? 0) + 1);

  console.log(
    `task board: ${tasks} tasks (layers of 5, each later task waits for two of the layer before), lease ${leaseMs / 1000}s`,
  );
  console.log(
    `${doomedWorkers} agents on worker A (SIGKILLed while they held claims), ${survivingWorkers} agents on worker B`,
  );
  console.log('');
  console.log(`${'agent'.padEnd(28)}${'worker'.padStart(8)}${'completed'.padStart(11)}`);
  for (const [agentId, count] of [...byAgent.entries()].sort())
    console.log(
      `${agentId.padEnd(28)}${(doomed.includes(agentId) ? 'A' : 'B').padStart(8)}${String(count).padStart(11)}`,
    );
  console.log('');
  console.log(`claims held at the kill: ${held.map((task) => `#${task.id} (${task.owner})`).join(', ')}`);
  for (const event of returned)
    console.log(
      `  returned #${event.taskId} ${((event.atMs - killedAt) / 1000).toFixed(1)}s after the kill: ${event.text}`,
    );
  console.log(
    `reclaimed and completed by worker B's agents: ${reclaimed.map((task) => `#${task.id}`).join(', ') || 'none'}`,
  );
  console.log(
    `completed exactly once: ${check.completedOnce}/${tasks} · double claims: ${check.doubleClaims} · work done twice: ${check.doubleDone} · dependency order violations: ${check.orderViolations.length}`,
  );
  console.log(
    `all tasks completed ${((allDoneAt - startedAt) / 1000).toFixed(1)}s after the start; worker A's tree ended ${resultA.status}`,
  );
  console.log(
    JSON.stringify({
      agents: doomedWorkers + survivingWorkers,
      tasks,
      completedOnce: check.completedOnce,
      doubleClaims: check.doubleClaims + check.doubleDone,
      reclaimedAfterKill: reclaimed.length,
      durationMs: allDoneAt - startedAt,
    }),
  );
} catch (error) {
  console.error(`bench:board did not complete: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  for (const child of children) await child.kill();
  survivor.shutdown();
  await surviving;
  await nativeConnection.close();
  await connection.close();
  await modelServer.close();
  await server.stop();
  rmSync(directory, { recursive: true, force: true });
}
