// @slow
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { createDataConverter } from '../../src/codec/data-converter';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { uniqueTaskQueue } from '../helpers/temporal';
import { scenario } from '../helpers/agent-env';
import { agentNamed } from '../helpers/scripted-agents';

const cli = path.join(import.meta.dirname, '..', '..', 'bin', 'subagents.js');
const payloadKey = randomBytes(32).toString('base64');
const serviceToken = `SERVICE-TOKEN-${randomBytes(6).toString('hex')}`;

let modelServer: ModelServer;
let connection: Connection;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  modelServer = await startModelServer({ port: 0 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await modelServer?.close();
  await connection?.close();
});

/** The real `subagents worker`, configured only by its environment, as an operator runs it. */
async function startRealWorker(taskQueue: string, extraEnv: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [cli, 'worker'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      SUBAGENTS_TASK_QUEUE: taskQueue,
      ANTHROPIC_BASE_URL: modelServer.url,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(child);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('removed') || output.includes('worker: task queue')) setTimeout(resolve, 500);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the worker exited early (code ${code}):\n${output}`)));
  });
}

/** Runs one agent whose only turn is the given Bash command; returns the command's output as the model saw it. */
async function bashOutputSeenByModel(taskQueue: string, name: string, command: string): Promise<string> {
  modelServer.setBehaviour(
    scenario([agentNamed(name, [{ toolUses: [{ name: 'Bash', input: { command } }] }, { text: 'done' }])]),
  );
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-secrets-ws-')));
  chmodSync(workspace, 0o777);
  const temporal = new Client({
    connection,
    namespace: 'default',
    dataConverter: createDataConverter({ SUBAGENTS_PAYLOAD_KEY: payloadKey }),
  });
  const client = new SubagentsClient(temporal, taskQueue);
  const handle = await client.startAgent({
    prompt: 'probe',
    name,
    cwd: workspace,
    model: 'claude-test-tiny',
    permissionMode: 'bypassPermissions',
  });
  expect((await handle.result()).status).toBe('completed');
  const second = modelServer
    .requests()
    .filter((request) => request.status === 200 && request.headers['x-subagents-agent-name'] === name)[1]!;
  const body = JSON.parse(second.rawBody) as { messages: { content: { type: string; content?: string }[] }[] };
  return body.messages.at(-1)!.content.find((block) => block.type === 'tool_result')!.content!;
}

describe("secrets stay out of the tools' reach", () => {
  it(
    "a same-user Bash finds neither the payload key in any process's environment nor an operator's token in its own",
    { timeout: 180_000 },
    async () => {
      const taskQueue = uniqueTaskQueue('secrets');
      await startRealWorker(taskQueue, { SUBAGENTS_PAYLOAD_KEY: payloadKey, MY_SERVICE_TOKEN: serviceToken });
      const seen = await bashOutputSeenByModel(
        taskQueue,
        'secret-probe',
        `echo "environ: $(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -F -e '${payloadKey}' -e '${serviceToken}')"; ` +
          `echo "env: $(env | grep -c -F '${serviceToken}')"; echo "path: \${PATH:+set}"`,
      );
      expect(seen).toContain('environ: 0');
      expect(seen).toContain('env: 0');
      expect(seen).toContain('path: set');
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'SUBAGENTS_BASH_USER runs commands as another user, who cannot read the worker at all',
    { timeout: 180_000 },
    async () => {
      const taskQueue = uniqueTaskQueue('bash-user');
      await startRealWorker(taskQueue, { SUBAGENTS_PAYLOAD_KEY: payloadKey, SUBAGENTS_BASH_USER: 'nobody' });
      const seen = await bashOutputSeenByModel(
        taskQueue,
        'user-probe',
        `echo "user: $(id -un)"; echo "home: $HOME"; n=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -F '${payloadKey}'); [ "$n" = 0 ] && echo "worker environ: denied"`,
      );
      expect(seen).toContain('user: nobody');
      expect(seen).toContain('worker environ: denied');
    },
  );
});
