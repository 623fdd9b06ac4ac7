import { describe, expect, it } from 'vitest';
import { describeMcpTools } from '../../src/mcp/descriptors';
import {
  agentMcpInput,
  matchesMcpPattern,
  mcpFilterOf,
  mcpToolAllowed,
  mcpToolName,
  serverMayBeUsed,
  serverOfPattern,
} from '../../src/shared/tools/mcp';

const stdio = (command: string) => ({ type: 'stdio' as const, command });

describe('MCP tool names and patterns', () => {
  it('names tools mcp__<server>__<tool>, replacing characters the API does not accept', () => {
    expect(mcpToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
    expect(mcpToolName('my server', 'read.file')).toBe('mcp__my_server__read_file');
  });

  it('matches exact names, mcp__<server>, mcp__<server>__* and mcp__*', () => {
    const tool = 'mcp__github__get_issue';
    for (const pattern of [tool, 'mcp__github', 'mcp__github__*', 'mcp__*'])
      expect(matchesMcpPattern(pattern, 'github', tool)).toBe(true);
    for (const pattern of ['mcp__git', 'mcp__github__get', 'mcp__jira__*', 'mcp__githubx'])
      expect(matchesMcpPattern(pattern, 'github', tool)).toBe(false);
    expect(serverOfPattern('mcp__github__x')).toBe('github');
    expect(serverOfPattern('mcp__github')).toBe('github');
    expect(serverOfPattern('mcp__*')).toBeUndefined();
  });

  it('applies disallowedTools before tools, like the runtime tools', () => {
    const filter = mcpFilterOf({
      tools: ['Read'],
      mcpTools: ['mcp__github__*'],
      disallowedTools: ['Bash', 'mcp__github__delete_repo'],
    });
    expect(filter).toEqual({ allow: ['mcp__github__*'], deny: ['mcp__github__delete_repo'] });
    expect(mcpToolAllowed(filter, 'github', 'mcp__github__get_issue')).toBe(true);
    expect(mcpToolAllowed(filter, 'github', 'mcp__github__delete_repo')).toBe(false);
    expect(mcpToolAllowed(filter, 'jira', 'mcp__jira__x')).toBe(false);
    // tools omitted (or *) allows every MCP tool; tools without mcp entries allows none.
    expect(mcpFilterOf({}).allow).toBe('all');
    expect(mcpFilterOf({ tools: ['*'] }).allow).toBe('all');
    expect(mcpFilterOf({ tools: ['Read'] }).allow).toEqual([]);
  });

  it('starts only the servers whose tools could pass, and the required ones', () => {
    const configured = { github: stdio('gh'), jira: stdio('jira'), fs: stdio('fs') };
    expect(agentMcpInput({ tools: ['Read'] }, configured)).toBeUndefined();
    expect(Object.keys(agentMcpInput({}, configured)!.servers)).toEqual(['fs', 'github', 'jira']);
    expect(
      Object.keys(agentMcpInput({ tools: [], mcpTools: ['mcp__github__get_issue'] }, configured)!.servers),
    ).toEqual(['github']);
    expect(Object.keys(agentMcpInput({ disallowedTools: ['mcp__jira'] }, configured)!.servers)).toEqual([
      'fs',
      'github',
    ]);
    expect(serverMayBeUsed({ allow: 'all', deny: ['mcp__*'] }, 'github')).toBe(false);
    // Inline servers join (and replace configured ones of the same name); required ones are kept even when filtered out.
    const input = agentMcpInput(
      {
        tools: ['Read'],
        mcpServers: [
          { name: 'browser', spec: stdio('pw') },
          { name: 'github', spec: stdio('gh2') },
        ],
        requiredMcpServers: ['jira'],
      },
      configured,
    )!;
    expect(input.servers).toEqual({ jira: stdio('jira') });
    expect(input.required).toEqual(['jira']);
    expect(agentMcpInput({ mcpServers: [{ name: 'github', spec: stdio('gh2') }] }, configured)!.servers.github).toEqual(
      stdio('gh2'),
    );
    expect(agentMcpInput({ tools: ['Read'], requiredMcpServers: ['missing'] }, {})).toEqual({
      servers: {},
      required: ['missing'],
      filter: { allow: [], deny: [] },
    });
  });
});

describe('describeMcpTools', () => {
  const tools = [
    {
      name: 'echo',
      description: 'Echoes',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    },
    { name: 'write_file', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } },
    { name: 'delete', description: 'x'.repeat(5000), inputSchema: {} },
    { name: 'n'.repeat(70), inputSchema: { type: 'object' } },
  ];

  it('classifies by the server hints: read-only needs no approval; read-only or idempotent may be retried', () => {
    const { descriptors, skipped } = describeMcpTools('fs', tools, { allow: 'all', deny: [] });
    expect(descriptors.map((descriptor) => [descriptor.definition.name, descriptor.classification])).toEqual([
      ['mcp__fs__echo', { readOnly: true, needsApproval: false, retrySafe: true }],
      ['mcp__fs__write_file', { readOnly: false, needsApproval: true, retrySafe: true }],
      ['mcp__fs__delete', { readOnly: false, needsApproval: true, retrySafe: false }],
    ]);
    expect(descriptors[0]!.runner).toEqual({ kind: 'mcp', server: 'fs', tool: 'echo' });
    expect(descriptors[1]!.definition.description).toBe('Tool write_file of the MCP server fs.');
    expect(descriptors[2]!.definition.description.length).toBe(2048);
    expect(descriptors[2]!.definition.input_schema).toEqual({ type: 'object' });
    expect(skipped).toEqual([expect.stringContaining('longer than 64 characters')]);
  });

  it('leaves out what the filter denies', () => {
    const { descriptors } = describeMcpTools('fs', tools, {
      allow: ['mcp__fs__echo', 'mcp__fs__delete'],
      deny: ['mcp__fs__delete'],
    });
    expect(descriptors.map((descriptor) => descriptor.definition.name)).toEqual(['mcp__fs__echo']);
  });
});
