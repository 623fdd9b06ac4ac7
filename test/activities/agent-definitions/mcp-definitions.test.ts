import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAgentDefinitions } from '../../../src/project/agent-definitions/load';
import { parseDefinitionFile } from '../../../src/project/agent-definitions/parse-definition';
import { scanDefinitionFiles } from '../../../src/project/agent-definitions/scan';
import { agentsListCommand } from '../../../src/cli/commands/agents-list';
import { createDefinitionTree, definitionFile, projectRow, type DefinitionTree } from './helpers';
import { freshForEachTest } from '../../helpers/unit-fixture';

const parse = (frontMatter: string) =>
  parseDefinitionFile(definitionFile(frontMatter), '/p/.claude/agents/a.md', 'project');
const messages = (result: ReturnType<typeof parse>) => result.reports.map((report) => report.message);

describe('definitions: MCP servers and tools', () => {
  it('reads mcpServers as references and inline servers, in list or mapping form, and requiredMcpServers', () => {
    const listed = parse(
      [
        'name: a',
        'description: d',
        'mcpServers:',
        '  - github',
        '  - browser:',
        '      type: stdio',
        '      command: npx',
        '      args: ["-y", "@playwright/mcp"]',
        '  - docs: { type: http, url: "https://mcp.example.com/mcp" }',
        'requiredMcpServers: [github, browser]',
      ].join('\n'),
    );
    expect(listed.definition?.mcpServers).toEqual([
      { name: 'github' },
      { name: 'browser', spec: { type: 'stdio', command: 'npx', args: ['-y', '@playwright/mcp'] } },
      { name: 'docs', spec: { type: 'http', url: 'https://mcp.example.com/mcp' } },
    ]);
    expect(listed.definition?.requiredMcpServers).toEqual(['github', 'browser']);
    expect(listed.reports).toEqual([]);
    const mapping = parse(
      'name: a\ndescription: d\nmcpServers: { local: { command: ./srv } }\nrequiredMcpServers: local',
    );
    expect(mapping.definition).toMatchObject({
      mcpServers: [{ name: 'local', spec: { type: 'stdio', command: './srv' } }],
      requiredMcpServers: ['local'],
    });
  });

  it('ignores a bad inline server with a warning, and skips a file whose mcpServers has the wrong type', () => {
    const bad = parse(
      'name: a\ndescription: d\nmcpServers:\n  - sock: { type: ws, url: "ws://x" }\n  - nocmd: { args: [x] }\n  - github\n  - github',
    );
    expect(bad.definition?.mcpServers).toEqual([{ name: 'github' }]);
    expect(messages(bad)).toEqual([
      'mcpServers: server "sock" is ignored: type "ws" is not supported (stdio, http and sse are)',
      expect.stringMatching(/^mcpServers: server "nocmd" is ignored: .*"command"/),
      'mcpServers: server "github" is listed twice; the first entry is used',
    ]);
    for (const value of ['42', 'true', '"just a string"']) {
      expect(parse(`name: a\ndescription: d\nmcpServers: ${value}`)).toEqual({
        reports: [
          {
            file: '/p/.claude/agents/a.md',
            level: 'skipped',
            message: expect.stringContaining('field "mcpServers" must be a list'),
          },
        ],
      });
    }
    expect(messages(parse('name: a\ndescription: d\nrequiredMcpServers: { a: 1 }'))).toEqual([
      expect.stringContaining('field "requiredMcpServers" must be a server name or a list'),
    ]);
  });

  it('an agent whose only tools are MCP tools keeps them and is not "without tools"', () => {
    const result = parse('name: mcp-only\ndescription: d\ntools: mcp__github__*');
    expect(result.definition).toMatchObject({ tools: [], mcpTools: ['mcp__github__*'] });
    expect(messages(result)).toEqual([]);
  });
});

describe('loading: MCP servers that are not configured are reported', () => {
  let tree: DefinitionTree;
  freshForEachTest(createDefinitionTree, (created) => (tree = created));
  afterEach(() => vi.restoreAllMocks());

  it('warns for MCP tools, references and required servers that neither .mcp.json nor the definition defines', async () => {
    const [, fine, missing] = await tree.write({
      'project/.mcp.json': JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } } }),
      'project/.claude/agents/fine.md': definitionFile(
        'name: fine\ndescription: d\ntools: Read, mcp__github__get_issue, mcp__local__x\nmcpServers:\n  - local: { command: ./srv }',
      ),
      'project/.claude/agents/missing.md': definitionFile(
        'name: missing\ndescription: d\ntools: mcp__jira__search, mcp__*\nmcpServers: [slack]\nrequiredMcpServers: [jira]',
      ),
    });
    const loaded = await loadAgentDefinitions({ cwd: path.join(tree.root, 'project'), homeDir: tree.home });
    expect(loaded.reports.filter((report) => report.file === fine)).toEqual([]);
    expect(loaded.reports.filter((report) => report.file === missing)).toEqual([
      {
        file: missing,
        level: 'warning',
        message:
          'MCP server(s) "jira" (mcp__jira__search, requiredMcpServers), "slack" (mcpServers) not configured in .mcp.json or the definition\'s mcpServers: their tools will be missing',
      },
    ]);
  });

  it("`subagents agents` shows each type's MCP tools and servers, and the configured servers", async () => {
    await tree.write({
      'project/.mcp.json': JSON.stringify({
        mcpServers: { github: { command: 'gh-mcp' }, docs: { type: 'http', url: 'https://mcp.example.com/mcp' } },
      }),
      'project/.claude/agents/triager.md': definitionFile(
        'name: triager\ndescription: d\ntools: Read, mcp__github__*\nmcpServers:\n  - browser: { command: pw }\nrequiredMcpServers: [github]',
      ),
      'project/.claude/agents/browser.md': definitionFile(
        'name: browser\ndescription: d\ntools: Read, mcp__browser\nmcpServers:\n  - browser: { command: pw }\nrequiredMcpServers: [browser, gone]',
      ),
    });
    const output: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
    expect(await agentsListCommand(['--dir', path.join(tree.root, 'project')], { homeDir: tree.home })).toBe(0);
    const lines = output.join('\n').split('\n');
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `))?.split(/\s{2,}/);
    expect(row('triager')).toEqual(projectRow('triager', 'Read, mcp__github__*', 'github!', 'inherit'));
    expect(row('browser')?.[3]).toBe('browser! (inline), gone! (not configured)');
    expect(row('general-purpose')?.[3]).toBe('docs, github');
    expect(row('Explore')?.[3]).toBe('-');
    expect(lines).toContain('MCP servers (.mcp.json): github (stdio), docs (http)');
  });

  it('`subagents agents --scan` counts what a corpus of agent files loses here', async () => {
    await tree.write({
      'corpus/plugins/a/agents/researcher.md': definitionFile(
        'name: researcher\ndescription: d\ntools: Read, WebFetch, WebSearch, TodoWrite, TaskCreate, NotebookEdit, chrome-mcp\ninitialPrompt: go',
      ),
      'corpus/plugins/b/agents/poster.md': definitionFile(
        'name: poster\ndescription: d\ntools: [Write, mcp__slack__post]\nmodel: sonnet',
      ),
      'corpus/plugins/b/agents/README.md': '# not an agent',
    });
    const report = await scanDefinitionFiles([
      path.join(tree.root, 'corpus', 'plugins'),
      path.join(tree.root, 'nowhere'),
    ]);
    expect(report).toMatchObject({
      files: 3,
      loaded: 2,
      skipped: 1,
      // The task-list tools are the board's (docs/board.md): kept, not dropped.
      droppedTools: { NotebookEdit: 1, 'chrome-mcp': 1 },
      droppedStandardTools: { NotebookEdit: 1 },
      droppedBoardTools: {},
      unsupportedFields: { initialPrompt: 1 },
      unconfiguredMcpServers: 1,
    });
    expect(report.reports).toContainEqual({
      file: path.join(tree.root, 'nowhere'),
      level: 'skipped',
      message: 'no such file or directory',
    });
    expect((await scanDefinitionFiles([path.join(tree.root, 'corpus')], ['slack'])).unconfiguredMcpServers).toBe(0);

    const output: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
    expect(
      await agentsListCommand(
        [
          '--scan',
          path.join(tree.root, 'corpus', 'plugins', 'a'),
          '--scan',
          path.join(tree.root, 'corpus', 'plugins', 'b'),
        ],
        { homeDir: tree.home },
      ),
    ).toBe(0);
    expect(output.join('\n')).toMatch(
      /^Scanned 3 file\(s\) under .*: 2 loaded, 1 skipped\.[\s\S]*Dropped standard Claude Code tools: NotebookEdit \(1\)/,
    );
    expect(output.join('\n')).toContain('Dropped task-list (board) tools: none');
  });
});
