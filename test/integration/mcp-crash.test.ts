// @slow
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/child-worker';
import { startUnattended, useCrashHarness } from '../helpers/crash-harness';
import { scenario } from '../helpers/agent-env';
import { agentPrompted } from '../helpers/scripted-agents';

const modules = path.resolve(import.meta.dirname, '..', '..', 'node_modules');
const everythingServer = path.join(modules, '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const slowServer = path.resolve(import.meta.dirname, '..', 'fixtures', 'mcp', 'slow-server.mjs');

const crash = useCrashHarness();

type Block = { type: string; content?: unknown; is_error?: boolean };

describe('worker crash (SIGKILL) during an MCP call', () => {
  it('recovers like any activity: a retry-safe call runs again on the next worker, any other is reported as possibly partial', async () => {
    const { workspace, taskQueue, client } = crash.prepare('mcp-crash');
    writeFileSync(
      path.join(workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: 'node', args: [everythingServer, 'stdio'] },
          slow: { command: 'node', args: [slowServer] },
        },
      }),
    );
    // The user trusts this project's servers (docs/security.md).
    mkdirSync(path.join(workspace, '.claude'));
    writeFileSync(
      path.join(workspace, '.claude', 'settings.local.json'),
      JSON.stringify({ enableAllProjectMcpServers: true }),
    );
    crash.modelServer.setBehaviour(
      scenario([
        agentPrompted('mcp crash test', [
          { toolUses: [{ name: 'mcp__everything__trigger-long-running-operation', input: { duration: 8, steps: 8 } }] },
          {
            toolUses: [
              {
                name: 'mcp__slow__slow_append',
                input: { file: path.join(workspace, 'out.txt'), line: 'x', delay_ms: 20_000 },
              },
            ],
          },
          { text: 'recovered' },
        ]),
      ]),
    );
    await crash.startWorker(taskQueue);
    const handle = await startUnattended(client, workspace, { prompt: 'mcp crash test', limits: { forking: false } });

    const running = (name: string) => async () =>
      (await handle.status().catch(() => undefined))?.currentTools.includes(name) ?? false;
    await waitFor(
      running('mcp__everything__trigger-long-running-operation'),
      90_000,
      'the long MCP operation to start',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await crash.workers[0]!.kill('SIGKILL');
    await crash.startWorker(taskQueue);

    await waitFor(running('mcp__slow__slow_append'), 120_000, 'the slow MCP call to start');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await crash.workers[1]!.kill('SIGKILL');
    await crash.startWorker(taskQueue);

    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('recovered');
    const results = (await handle.messages())
      .flatMap((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []))
      .filter((block) => block.type === 'tool_result');
    expect(results).toHaveLength(2);
    expect(results[0]!.is_error).toBeUndefined();
    expect(JSON.stringify(results[0]!.content)).toMatch(/completed/i);
    expect(results[1]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(
        /^mcp__slow__slow_append was interrupted: the worker running it stopped .* may have partially run/,
      ),
    });

    const history = await crash.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const events = history.events ?? [];
    const attempts = events
      .filter((event) => event.activityTaskStartedEventAttributes)
      .map((event) => {
        const scheduled = events.find(
          (candidate) =>
            Number(candidate.eventId) === Number(event.activityTaskStartedEventAttributes!.scheduledEventId),
        );
        return [
          scheduled?.activityTaskScheduledEventAttributes?.activityType?.name,
          event.activityTaskStartedEventAttributes!.attempt,
        ];
      });
    expect(attempts.filter(([type]) => type === 'callMcpTool')).toEqual([
      ['callMcpTool', 2],
      ['callMcpTool', 1],
    ]);
  }, 300_000);
});
