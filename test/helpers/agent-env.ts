import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Worker, WorkerOptions } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import type { WebToolSettings } from '../../src/activities/web';
import { SubagentsClient, type StartAgentOptions } from '../../src/client/client';
import {
  startModelServer,
  type Behaviour,
  type ModelServer,
  type RecordedRequest,
} from '../../src/model-server/server';
import { connectTestTemporal, createTestWorker, testHomeDir, uniqueTaskQueue, type TestTemporal } from './temporal';

/** A project directory of its own under `root`, with its files (`.claude/settings.json`, agents, hook scripts: executable). */
export function writeProject(root: string, name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content, { mode: 0o755 });
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A scripted model behaviour from its agents' scripts (the model server's scenario: matches and turns, src/model-server). */
export const scenario = (agents: unknown[]): Behaviour => ({ kind: 'scripted', scenario: { agents } }) as never;

/** A real dev server connection, a local model server, a worker on a unique queue, and a temp workspace. */
export interface AgentTestEnv {
  temporal: TestTemporal;
  modelServer: ModelServer;
  taskQueue: string;
  client: SubagentsClient;
  workspace: string;
  worker: Worker;
  /** Starts a fresh worker on the same task queue (after the test shut the previous one down). */
  restartWorker(): Promise<void>;
  start(options: Omit<StartAgentOptions, 'cwd'> & { cwd?: string }): ReturnType<SubagentsClient['startAgent']>;
  writeFiles(files: Record<string, string>): Promise<void>;
  /** Scripts the model: these agents' turns (test/helpers/scripted-agents.ts), from the next request on. */
  script(...agents: object[]): void;
  close(): Promise<void>;
}

/** How a test environment differs from the default one. */
export interface AgentTestEnvOptions {
  workerOptions?: Partial<WorkerOptions>;
  startWorker?: boolean;
  homeDir?: string;
  web?: WebToolSettings;
}

export async function createAgentTestEnv(
  behaviour: Behaviour,
  options: AgentTestEnvOptions = {},
): Promise<AgentTestEnv> {
  const homeDir = options.homeDir ?? testHomeDir();
  const temporal = await connectTestTemporal();
  const modelServer = await startModelServer({ port: 0, behaviour });
  const taskQueue = uniqueTaskQueue();
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-ws-')));
  const worker = await createTestWorker(temporal, {
    taskQueue,
    modelBaseUrl: modelServer.url,
    toolResultsDir: path.join(workspace, '..', `${path.basename(workspace)}-results`),
    homeDir,
    workerOptions: options.workerOptions,
    ...(options.web ? { web: options.web } : {}),
  });
  let running = options.startWorker === false ? undefined : worker.run();
  const client = new SubagentsClient(temporal.client, taskQueue);
  const environment: AgentTestEnv = {
    temporal,
    modelServer,
    taskQueue,
    client,
    workspace,
    worker,
    restartWorker: async () => {
      await running;
      environment.worker = await createTestWorker(temporal, {
        taskQueue,
        modelBaseUrl: modelServer.url,
        homeDir,
        workerOptions: options.workerOptions,
        ...(options.web ? { web: options.web } : {}),
      });
      running = environment.worker.run();
    },
    // Tests that are not about approvals run without prompts; approval tests pass a mode.
    start: (startOptions) =>
      client.startAgent({
        homeDir,
        ...startOptions,
        cwd: startOptions.cwd ?? workspace,
        model: startOptions.model ?? 'claude-test-tiny',
        permissionMode: startOptions.permissionMode ?? 'bypassPermissions',
        // An omitted subagent_type means general-purpose in these tests; fork tests turn forking on.
        limits: { forking: false, ...startOptions.limits },
      }),
    writeFiles: async (files) => {
      for (const [name, content] of Object.entries(files)) {
        const file = path.join(workspace, name);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    },
    script: (...agents) => modelServer.setBehaviour(scenario(agents)),
    close: async () => {
      if (running) {
        if (environment.worker.getState() === 'RUNNING') environment.worker.shutdown();
        await running;
      }
      await modelServer.close();
      await temporal.close();
    },
  };
  return environment;
}

/** One agent's model requests received so far (the runtime sends x-subagents-agent-id), answered yet or not. */
export function modelCallsOf(modelServer: ModelServer, agentId: string): RecordedRequest[] {
  return modelServer
    .requests()
    .filter((request) => request.path === '/v1/messages' && request.headers['x-subagents-agent-id'] === agentId);
}

/** The parsed bodies of the model requests received so far. */
export function requestBodies(
  modelServer: ModelServer,
): { messages: { role: string; content: unknown }[]; system: unknown; tools?: { name: string }[] }[] {
  return modelServer
    .requests()
    .filter((request) => request.path === '/v1/messages')
    .map((request) => JSON.parse(request.rawBody));
}

/** A file's shared environment: created before its tests, closed after them; usable inside tests and hooks only. */
export function useAgentTestEnv(
  behaviour: Behaviour = { kind: 'echo' },
  options: AgentTestEnvOptions | (() => AgentTestEnvOptions) = {},
): AgentTestEnv {
  let current: AgentTestEnv | undefined;
  beforeAll(async () => {
    current = await createAgentTestEnv(behaviour, typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await current?.close();
  });
  const environment = (): AgentTestEnv => {
    if (!current) throw new Error('The test environment starts in beforeAll: use it inside a test or a hook.');
    return current;
  };
  // The environment exists only once beforeAll ran; the proxy lets the file name it at the top level.
  return new Proxy({} as AgentTestEnv, {
    get: (_target, key) => Reflect.get(environment(), key),
    set: (_target, key, value) => Reflect.set(environment(), key, value),
  });
}
