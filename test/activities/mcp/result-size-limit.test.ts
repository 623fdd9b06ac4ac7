import { MockActivityEnvironment } from '@temporalio/testing';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpActivities } from '../../../src/activities/mcp/activities';
import { McpConnectionPool } from '../../../src/mcp/connection-pool';
import type { McpToolCallInput } from '../../../src/shared/tools/extra-tool-calls';
import type { ToolCallResult } from '../../../src/shared/tools/tools';

const bigServer = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'mcp', 'big-result-server.mjs');

let directory: string;
let pool: McpConnectionPool;
beforeEach(async () => {
  directory = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'mcp-big-')));
  pool = new McpConnectionPool();
});
afterEach(async () => {
  await pool.closeAll();
  await fs.rm(directory, { recursive: true, force: true });
});

function callInput(megabytes: number, toolUseId: string): McpToolCallInput {
  return {
    agentId: 'agent-1',
    toolUseId,
    cwd: directory,
    toolName: 'mcp__big__big_text',
    server: 'big',
    spec: { type: 'stdio', command: process.execPath, args: [bigServer] },
    tool: 'big_text',
    arguments: { count_file: path.join(directory, 'calls.txt'), megabytes },
    // A read-only tool: a server that merely stopped would be retried on a restarted one.
    retrySafe: true,
    maxResultChars: 1000,
  };
}

const callCount = async () => (await fs.readFile(path.join(directory, 'calls.txt'), 'utf8')).trim().split('\n').length;

describe('an MCP result larger than the SDK stdio limit', () => {
  it('is reported as too large, with the limit, and is not retried', async () => {
    const { callMcpTool } = createMcpActivities({ pool, resultsDir: path.join(directory, 'results') });
    const result = (await new MockActivityEnvironment().run(callMcpTool, callInput(11, 'toolu_big'))) as ToolCallResult;
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      'McpResultTooLarge: the MCP server "big" answered mcp__big__big_text with a message larger than the MCP SDK\'s stdio limit of 10 MiB (10485760 bytes), ' +
        'so the SDK dropped the connection and the result is lost. The tool ran; the call is not retried. ' +
        'Ask for less (a narrower query, a page or a range), or use a tool that writes its output to a file.',
    );
    expect(result.content).not.toMatch(/stopped/);
    expect(await callCount()).toBe(1);

    // The next call gets a server again and its answer as usual.
    const small = await new MockActivityEnvironment().run(callMcpTool, callInput(0.001, 'toolu_small'));
    expect(small).toMatchObject({ isError: false });
    expect(await callCount()).toBe(2);
  });
});
