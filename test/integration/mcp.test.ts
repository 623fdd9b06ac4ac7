// @slow
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { requestBodies, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted, waitForTool } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentOfType, agentPrompted, spawn } from '../helpers/scripted-agents';

const modules = path.resolve(import.meta.dirname, '..', '..', 'node_modules');
export const everythingServer = path.join(modules, '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const filesystemServer = path.join(modules, '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
export const slowServer = path.resolve(import.meta.dirname, '..', 'fixtures', 'mcp', 'slow-server.mjs');

const env = useAgentTestEnv();

type Block = { type: string; content?: unknown; is_error?: boolean; text?: string };
const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);
const resultText = (block: Block) =>
  typeof block.content === 'string'
    ? block.content
    : blocksOf(block.content)
        .map((inner) => inner.text ?? '')
        .join('\n');

async function toolResults(agentId: string): Promise<Block[]> {
  return (await env.client.getAgent(agentId).messages())
    .flatMap((message) => blocksOf(message.content))
    .filter((block) => block.type === 'tool_result');
}

/** Activity type, summary and attempt of every activity of an agent's history (Temporal records the started event, with the last attempt, when the activity closes). */
async function activities(agentId: string): Promise<{ type: string; summary: string; attempts: number[] }[]> {
  const history = await env.temporal.client.workflow.getHandle(agentId).fetchHistory();
  const events = history.events ?? [];
  const decode = (payload: temporal.api.common.v1.IPayload | null | undefined) =>
    payload?.data ? (JSON.parse(Buffer.from(payload.data).toString()) as string) : '';
  return events
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => ({
      type: event.activityTaskScheduledEventAttributes!.activityType!.name!,
      summary: decode(event.userMetadata?.summary),
      attempts: events
        .filter(
          (started) => Number(started.activityTaskStartedEventAttributes?.scheduledEventId) === Number(event.eventId),
        )
        .map((started) => started.activityTaskStartedEventAttributes!.attempt!),
    }));
}

/** Processes started by this test process (the in-process worker's stdio MCP servers) whose command line contains `marker`. */
function childProcesses(marker: string): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  return lines.filter((line) => line.includes(marker)).map((line) => Number(line.trim().split(/\s+/)[0]));
}

const definition = (lines: string[], prompt = 'Use your MCP tools as asked.') =>
  `---\n${lines.join('\n')}\n---\n${prompt}\n`;

describe('MCP servers over stdio (real servers from npm packages)', () => {
  it('a subagent whose definition names an MCP server calls its tools; the tool list is snapshotted once at its start', async () => {
    await env.writeFiles({
      '.claude/agents/mcp-user.md': definition([
        'name: mcp-user',
        'description: Uses the everything MCP server',
        'tools: Read, mcp__everything__echo, mcp__everything__get-sum, mcp__everything__get-tiny-image',
        'mcpServers:',
        '  - everything:',
        '      command: node',
        `      args: [${JSON.stringify(everythingServer)}, stdio]`,
      ]),
    });
    env.modelServer.clearRequests();
    env.script(
      agentOfType('mcp-user', [
        {
          toolUses: [
            { name: 'mcp__everything__echo', input: { message: 'hello over stdio' } },
            { name: 'mcp__everything__get-sum', input: { a: 2, b: 3 } },
            { name: 'mcp__everything__get-tiny-image', input: {} },
          ],
        },
        { toolUses: [{ name: 'mcp__everything__echo', input: { wrong: 1 } }] },
        { text: 'child done: {{last_tool_result}}' },
      ]),
      agentPrompted('delegate to mcp-user', [
        {
          toolUses: [spawn('use mcp', 'echo and add', { subagent_type: 'mcp-user' })],
        },
        { text: 'root done' },
      ]),
    );
    const { handle: root } = await runCompleted(env, { prompt: 'Please delegate to mcp-user' });
    const childId = `${root.agentId}.1`;

    // What reached the model: the runtime tools of its definition, then the MCP tools it allows, with the servers' schemas.
    const childBodies = requestBodies(env.modelServer).filter((body) =>
      body.tools?.some((tool) => tool.name.startsWith('mcp__')),
    );
    expect(childBodies).toHaveLength(3);
    expect(childBodies[0]!.tools!.map((tool) => tool.name)).toEqual([
      'Read',
      'mcp__everything__echo',
      'mcp__everything__get-sum',
      'mcp__everything__get-tiny-image',
    ]);
    expect(JSON.stringify(childBodies[0]!.tools![1])).toContain('"message"');
    // The request prefix stays byte-identical from turn to turn.
    const withoutBreakpoints = (tools: { name: string }[]) =>
      JSON.stringify(tools.map((tool) => ({ ...tool, cache_control: undefined })));
    expect(withoutBreakpoints(childBodies[2]!.tools!)).toBe(withoutBreakpoints(childBodies[0]!.tools!));
    // The root has no MCP tools: its definition (general-purpose) would allow them, but no server is configured for it.
    expect(
      requestBodies(env.modelServer).filter((body) => !body.tools?.some((tool) => tool.name.startsWith('mcp__')))
        .length,
    ).toBeGreaterThan(0);

    const results = await toolResults(childId);
    expect(resultText(results[0]!)).toBe('Echo: hello over stdio');
    expect(resultText(results[1]!)).toMatch(/5/);
    expect(blocksOf(results[2]!.content).map((block) => block.type)).toContain('image');
    expect(results[3]).toMatchObject({ is_error: true });
    expect(resultText(results[3]!)).toMatch(/mcp__everything__echo|message/i);

    const calls = await activities(childId);
    expect(calls.filter((call) => call.type === 'startMcpServers')).toHaveLength(1);
    expect(calls.filter((call) => call.type === 'callMcpTool').map((call) => call.summary)).toEqual([
      'mcp__everything__echo',
      'mcp__everything__get-sum',
      'mcp__everything__get-tiny-image',
      'mcp__everything__echo',
    ]);
    // The three read-only calls of one turn ran side by side: all scheduled before the first completed.
    const history = await env.temporal.client.workflow.getHandle(childId).fetchHistory();
    const order = (history.events ?? [])
      .map((event) =>
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'callMcpTool'
          ? 'scheduled'
          : event.activityTaskCompletedEventAttributes
            ? 'completed'
            : undefined,
      )
      .filter(Boolean);
    const firstScheduled = order.indexOf('scheduled');
    expect(order.slice(firstScheduled, firstScheduled + 3)).toEqual(['scheduled', 'scheduled', 'scheduled']);
    const status = await env.client.getAgent(childId).status();
    expect(status.mcpServers).toEqual([{ name: 'everything', state: 'connected', tools: 3, transport: 'stdio' }]);
    await recordHistory(env.temporal.client, childId, 'mcp-subagent-tools');
  });

  it("servers of .mcp.json are every agent's, filtered by its tools; server-filesystem works on the workspace", async () => {
    await env.writeFiles({
      '.mcp.json': JSON.stringify({
        mcpServers: { fs: { command: 'node', args: [filesystemServer, '${MCP_TEST_ROOT:-.}'] } },
      }),
      // The user trusts this project's servers (docs/security.md).
      '.claude/settings.local.json': JSON.stringify({ enableAllProjectMcpServers: true }),
      'notes/hello.txt': 'hello from the workspace',
    });
    env.script(
      agentPrompted('list the notes', [
        {
          toolUses: [
            { name: 'mcp__fs__list_directory', input: { path: path.join(env.workspace, 'notes') } },
            { name: 'mcp__fs__read_text_file', input: { path: path.join(env.workspace, 'notes', 'hello.txt') } },
          ],
        },
        { text: 'listed' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'Please list the notes' });
    const results = await toolResults(handle.agentId);
    expect(resultText(results[0]!)).toContain('[FILE] hello.txt');
    expect(resultText(results[1]!)).toBe('hello from the workspace');
    expect((await handle.status()).mcpServers?.[0]).toMatchObject({
      name: 'fs',
      state: 'connected',
      transport: 'stdio',
    });
  });

  it('a required server that cannot start fails the agent within 30 s, naming it; its prompt is kept', async () => {
    await env.writeFiles({
      '.claude/agents/needs-broken.md': definition([
        'name: needs-broken',
        'description: Cannot run without its server',
        'tools: Read, mcp__broken',
        'requiredMcpServers: [broken]',
        'mcpServers:',
        '  - broken: { command: /nonexistent/mcp-server-binary }',
      ]),
    });
    const handle = await env.start({ prompt: 'never runs', type: 'needs-broken' });
    const result = await handle.result();
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^McpServerUnavailable: the agent requires MCP server\(s\) that did not connect within 30 s: "broken" \(.*ENOENT/,
    );
    expect(result.turns).toBe(0);
    const first = (await handle.messages())[0]!;
    expect(first.role).toBe('user');
    // The first message keeps the task prompt, last, after the agent's context (docs/model-surface.md).
    expect((first.content as { type: string; text?: string }[]).at(-1)).toEqual({ type: 'text', text: 'never runs' });
  }, 120_000);

  it('a server killed mid-call is restarted: a read-only call is retried, any other call is answered with an error, never lost', async () => {
    const marker = path.join(env.workspace, `appended-${Date.now()}.txt`);
    await env.writeFiles({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          everything: { command: 'node', args: [everythingServer, 'stdio'] },
          slow: { command: 'node', args: [slowServer] },
        },
      }),
      '.claude/settings.local.json': JSON.stringify({ enableAllProjectMcpServers: true }),
    });
    env.script(
      agentPrompted('kill test', [
        { toolUses: [{ name: 'mcp__everything__trigger-long-running-operation', input: { duration: 6, steps: 6 } }] },
        { toolUses: [{ name: 'mcp__slow__slow_append', input: { file: marker, line: 'first', delay_ms: 8000 } }] },
        { toolUses: [{ name: 'mcp__slow__slow_append', input: { file: marker, line: 'second', delay_ms: 0 } }] },
        { text: 'survived' },
      ]),
    );
    const handle = await env.start({ prompt: 'kill test' });
    // The read-only long operation: kill its server while it runs.
    await waitForTool(
      env,
      handle.agentId,
      'mcp__everything__trigger-long-running-operation',
      'the long operation to start',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const pid of childProcesses('server-everything')) process.kill(pid, 'SIGKILL');
    // The non-idempotent call: kill its server after it started.
    await waitFor(() => existsSync(`${marker}.started`), 60_000, 'slow_append to start');
    for (const pid of childProcesses('slow-server.mjs')) process.kill(pid, 'SIGKILL');

    const result = await handle.result();
    expect(result.status).toBe('completed');
    const results = await toolResults(handle.agentId);
    expect(results).toHaveLength(3);
    expect(results[0]!.is_error).toBeUndefined();
    expect(resultText(results[0]!)).toMatch(/completed/i);
    expect(results[1]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(
        /^McpServerStopped: the MCP server "slow" stopped while mcp__slow__slow_append ran .*may have partially run/,
      ),
    });
    expect(resultText(results[2]!)).toBe('appended second');
    // The killed call never completed, the next one ran on a restarted server.
    expect(readFileSync(marker, 'utf8')).toBe('second\n');
    const calls = (await activities(handle.agentId)).filter((call) => call.type === 'callMcpTool');
    expect(calls.map((call) => [call.summary, call.attempts.at(-1)])).toEqual([
      ['mcp__everything__trigger-long-running-operation', 2],
      ['mcp__slow__slow_append', 1],
      ['mcp__slow__slow_append', 1],
    ]);
  }, 180_000);

  it('an interrupt cancels a running MCP call (the activity is cancelled) and the tool_use still gets a result', async () => {
    await env.writeFiles({
      '.mcp.json': JSON.stringify({
        mcpServers: { everything: { command: 'node', args: [everythingServer, 'stdio'] } },
      }),
      '.claude/settings.local.json': JSON.stringify({ enableAllProjectMcpServers: true }),
    });
    env.script(
      agentPrompted('interrupt test', [
        { toolUses: [{ name: 'mcp__everything__trigger-long-running-operation', input: { duration: 30, steps: 30 } }] },
      ]),
    );
    const handle = await env.start({ prompt: 'interrupt test' });
    await waitForTool(env, handle.agentId, 'mcp__everything__trigger-long-running-operation', 'the MCP call to start');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await handle.interrupt({ reason: 'too slow' });
    const result = await handle.result();
    expect(result.status).toBe('interrupted');
    const [only] = await toolResults(handle.agentId);
    expect(only).toMatchObject({ is_error: true, content: 'Interrupted by user before this tool finished.' });
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    expect((history.events ?? []).some((event) => event.activityTaskCanceledEventAttributes)).toBe(true);
  }, 120_000);

  it('a worker that shuts down stops the stdio servers it started', async () => {
    expect(childProcesses('server-everything').length).toBeGreaterThan(0);
    env.worker.shutdown();
    await env.restartWorker();
    expect(childProcesses('server-everything')).toEqual([]);
    expect(childProcesses('server-filesystem')).toEqual([]);
  });
});
