// @slow
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { startModelServer, type ModelServer } from '../../src/model-server/server';
import { startChildWorker, waitFor, type ChildWorker } from '../helpers/child-worker';
import { connectTestTemporal, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

const modules = path.resolve(import.meta.dirname, '..', '..', 'node_modules');
const everythingServer = path.join(modules, '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const slowServer = path.resolve(import.meta.dirname, '..', 'fixtures', 'mcp', 'slow-server.mjs');

let temporal: TestTemporal;
let modelServer: ModelServer;
const workers: ChildWorker[] = [];

beforeAll(async () => {
  temporal = await connectTestTemporal();
  modelServer = await startModelServer({ port: 0 });
});
afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await modelServer?.close();
  await temporal?.close();
});

type Block = { type: string; content?: unknown; is_error?: boolean };

describe('worker crash (SIGKILL) during an MCP call', () => {
  it('recovers like any activity: a retry-safe call runs again on the next worker, any other is reported as possibly partial', async () => {
    const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-mcp-crash-')));
    writeFileSync(path.join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: 'node', args: [everythingServer, 'stdio'] }, slow: { command: 'node', args: [slowServer] } } }));
    // The user trusts this project's servers (docs/security.md).
    mkdirSync(path.join(workspace, '.claude'));
    writeFileSync(path.join(workspace, '.claude', 'settings.local.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
    const taskQueue = uniqueTaskQueue('mcp-crash');
    modelServer.setBehaviour({
      kind: 'scripted',
      scenario: {
        agents: [
          {
            match: { userIncludes: 'mcp crash test' },
            turns: [
              { toolUses: [{ name: 'mcp__everything__trigger-long-running-operation', input: { duration: 8, steps: 8 } }] },
              { toolUses: [{ name: 'mcp__slow__slow_append', input: { file: path.join(workspace, 'out.txt'), line: 'x', delay_ms: 20_000 } }] },
              { text: 'recovered' },
            ],
          },
        ],
      },
    });
    workers.push(await startChildWorker({ taskQueue, modelBaseUrl: modelServer.url }));
    const client = new SubagentsClient(temporal.client, taskQueue);
    const handle = await client.startAgent({ prompt: 'mcp crash test', cwd: workspace, model: 'claude-test-tiny', permissionMode: 'bypassPermissions', limits: { forking: false } });

    const running = (name: string) => async () => (await handle.status().catch(() => undefined))?.currentTools.includes(name) ?? false;
    await waitFor(running('mcp__everything__trigger-long-running-operation'), 90_000, 'the long MCP operation to start');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await workers[0]!.kill('SIGKILL');
    workers.push(await startChildWorker({ taskQueue, modelBaseUrl: modelServer.url }));

    await waitFor(running('mcp__slow__slow_append'), 120_000, 'the slow MCP call to start');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await workers[1]!.kill('SIGKILL');
    workers.push(await startChildWorker({ taskQueue, modelBaseUrl: modelServer.url }));

    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('recovered');
    const results = (await handle.messages()).flatMap((message) => (Array.isArray(message.content) ? (message.content as Block[]) : [])).filter((block) => block.type === 'tool_result');
    expect(results).toHaveLength(2);
    expect(results[0]!.is_error).toBeUndefined();
    expect(JSON.stringify(results[0]!.content)).toMatch(/completed/i);
    expect(results[1]).toMatchObject({ is_error: true, content: expect.stringMatching(/^mcp__slow__slow_append was interrupted: the worker running it stopped .* may have partially run/) });

    const history = await temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const events = history.events ?? [];
    const attempts = events.filter((event) => event.activityTaskStartedEventAttributes).map((event) => {
      const scheduled = events.find((candidate) => Number(candidate.eventId) === Number(event.activityTaskStartedEventAttributes!.scheduledEventId));
      return [scheduled?.activityTaskScheduledEventAttributes?.activityType?.name, event.activityTaskStartedEventAttributes!.attempt];
    });
    expect(attempts.filter(([type]) => type === 'callMcpTool')).toEqual([['callMcpTool', 2], ['callMcpTool', 1]]);
  }, 300_000);
});
