import Anthropic from '@anthropic-ai/sdk';
import type { Worker } from '@temporalio/worker';
import { mkdtempSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/shared/tools/define-tool';
import { SubagentsClient } from '../../src/client/client';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { createAgentWorker, createToolWorker, type AgentWorkerOptions } from '../../src/worker/worker';
import { connectTestTemporal, testHomeDir, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';
import { requestBodies, scenario } from '../helpers/agent-env';
import { activityStarts } from '../helpers/histories';
import { agentPrompted, bash } from '../helpers/scripted-agents';

let temporal: TestTemporal;
let modelServer: ModelServer;
let workspace: string;
const workers: Worker[] = [];
const runs: Promise<void>[] = [];

/** Says which worker ran it: the same tool is defined on the agents' worker and on the sandbox worker. */
const whereAmI = (place: string) =>
  defineTool({
    name: 'where_am_i',
    description: 'Says which worker ran the call.',
    input: z.object({}),
    readOnly: true,
    taskQueue: 'placeholder',
    run: () => `ran on ${place}`,
  });

const weather = defineTool({
  name: 'lookup_weather',
  description: 'The weather in a city.',
  input: z.object({ city: z.string().min(1) }),
  readOnly: true,
  run: ({ city }, context) => `sunny in ${city} (asked by ${context.agentId})`,
});
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys the service.',
  input: z.object({}),
  run: () => 'deployed',
});

function workerOptions(taskQueue: string): AgentWorkerOptions {
  return {
    connection: temporal.nativeConnection,
    client: temporal.client,
    namespace: 'default',
    taskQueue,
    anthropic: new Anthropic({ apiKey: 'test-key', baseURL: modelServer.url, maxRetries: 0 }),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    homeDir: testHomeDir(),
    web: {},
  };
}

function run(worker: Worker): void {
  workers.push(worker);
  runs.push(worker.run());
}

beforeAll(async () => {
  temporal = await connectTestTemporal();
  modelServer = await startModelServer({ port: 0, behaviour: { kind: 'echo' } });
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-custom-')));
  await mkdir(path.join(workspace, '.claude', 'agents'), { recursive: true });
  await writeFile(
    path.join(workspace, '.claude', 'agents', 'forecaster.md'),
    '---\nname: forecaster\ndescription: Forecasts\ntools: Read, lookup_weather, deploy\ndisallowedTools: deploy\n---\nYou forecast.\n',
  );
});
afterAll(async () => {
  for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  await Promise.all(runs);
  await modelServer?.close();
  await temporal?.close();
});

type Block = { type: string; content?: unknown; is_error?: boolean };
const toolResults = (messages: { content: unknown }[]) =>
  messages
    .flatMap((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []))
    .filter((block) => block.type === 'tool_result');

describe('custom tools (defineTool)', () => {
  it("reach the model by the definition's filter, validate input, and run as their own activity type", async () => {
    const taskQueue = uniqueTaskQueue('custom');
    run(await createAgentWorker({ ...workerOptions(taskQueue), tools: [weather, deploy] }));
    modelServer.clearRequests();
    modelServer.setBehaviour(
      scenario([
        agentPrompted('weather in Paris', [
          { toolUses: [{ name: 'lookup_weather', input: { city: 'Paris' } }] },
          { toolUses: [{ name: 'lookup_weather', input: { city: '', extra: 1 } }] },
          { toolUses: [{ name: 'deploy', input: {} }] },
          { text: 'Sunny.' },
        ]),
      ]),
    );
    const client = new SubagentsClient(temporal.client, taskQueue);
    const handle = await client.startAgent({
      prompt: 'What is the weather in Paris?',
      type: 'forecaster',
      cwd: workspace,
      homeDir: testHomeDir(),
      model: 'claude-test-tiny',
      permissionMode: 'default',
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');

    // The model saw lookup_weather with the JSON Schema of its zod input; deploy was denied by disallowedTools.
    const [first] = requestBodies(modelServer);
    const tools = first!.tools as { name: string; input_schema?: unknown }[];
    expect(tools.map((tool) => tool.name)).toEqual(['Read', 'lookup_weather']);
    expect(tools[1]!.input_schema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
    });

    const results = toolResults(await handle.messages());
    expect(results[0]).toMatchObject({ content: `sunny in Paris (asked by ${handle.agentId})` });
    expect(results[0]!.is_error).not.toBe(true);
    expect(results[1]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^InvalidToolInput: lookup_weather was called with invalid input: "city"/),
    });
    expect(results[2]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^ToolNotAllowed: the tool "deploy" is not available/),
    });

    // Read-only: no approval was asked for in the default mode; one activity of the tool's own type per valid or invalid call.
    const history = await temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const types = (history.events ?? [])
      .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(types.filter((name) => name === 'lookup_weather')).toHaveLength(2);
    expect(types).not.toContain('deploy');
  });

  it('runs Bash and a custom tool on a second worker polling their own task queue', async () => {
    const taskQueue = uniqueTaskQueue('agents');
    const sandboxQueue = uniqueTaskQueue('sandbox');
    const routedWhereAmI = (place: string) => ({ ...whereAmI(place), taskQueue: sandboxQueue });
    run(
      await createAgentWorker({
        ...workerOptions(taskQueue),
        tools: [routedWhereAmI("the agents' worker")],
        toolTaskQueues: { Bash: sandboxQueue },
      }),
    );
    run(
      await createToolWorker({
        ...workerOptions(sandboxQueue),
        tools: [routedWhereAmI('the sandbox worker')],
        onlyTools: ['Bash', 'where_am_i'],
        workspace: { workerId: 'sandbox-1' },
      }),
    );
    modelServer.setBehaviour(
      scenario([
        agentPrompted('where do tools run', [
          {
            toolUses: [bash('echo from-bash'), { name: 'where_am_i', input: {} }],
          },
          { text: 'Done.' },
        ]),
      ]),
    );
    const client = new SubagentsClient(temporal.client, taskQueue);
    const handle = await client.startAgent({
      prompt: 'where do tools run?',
      cwd: workspace,
      homeDir: testHomeDir(),
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
    });
    expect((await handle.result()).status).toBe('completed');
    const results = toolResults(await handle.messages());
    expect(String(results[0]!.content)).toContain('from-bash');
    expect(results[1]).toMatchObject({ content: 'ran on the sandbox worker' });

    // The history says who ran each call: Bash and where_am_i were taken from the sandbox queue by the sandbox worker.
    const events = (await temporal.client.workflow.getHandle(handle.agentId).fetchHistory()).events ?? [];
    const startedBy: Record<string, string> = {};
    for (const start of activityStarts(events)) startedBy[start.name] = `${start.taskQueue} by ${start.identity}`;
    expect(startedBy.Bash).toMatch(new RegExp(`^${sandboxQueue} by sandbox-1 `));
    expect(startedBy.where_am_i).toMatch(new RegExp(`^${sandboxQueue} by sandbox-1 `));
    expect(startedBy.callModel).toMatch(new RegExp(`^${taskQueue} by `));
  });
});
