import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadAgentDefinitions } from '../../../src/project/agent-definitions/load';
import { agentsListCommand } from '../../../src/cli/commands/agents-list';
import type { LoadedDefinitions } from '../../../src/shared/agents/agent-definition';
import { createDefinitionTree, definitionFile, projectRow, type DefinitionTree } from './helpers';

let tree: DefinitionTree;
let output: string[];
let errors: string[];
beforeEach(async () => {
  tree = await createDefinitionTree();
  output = [];
  errors = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void errors.push(parts.join(' ')));
  await tree.write({
    'project/.claude/agents/reviewer.md': definitionFile(
      'name: reviewer\ndescription: Reviews\ntools: Read, Grep, Agent(Explore), NotebookEdit\nmodel: sonnet',
    ),
    'project/.claude/agents/broken.md': definitionFile('name: broken'),
    'home/.claude/agents/writer.md': definitionFile('name: writer\ndescription: Writes\ndisallowedTools: Bash'),
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await tree.cleanup();
});

describe('agentsListCommand', () => {
  it('prints LoadedDefinitions as JSON with --json', async () => {
    const dir = path.join(tree.root, 'project');
    const code = await agentsListCommand(['--dir', dir, '--json'], { homeDir: tree.home });
    expect(code).toBe(0);
    expect(output).toHaveLength(1);
    const printed = JSON.parse(output[0] ?? '') as LoadedDefinitions;
    expect(printed).toEqual(await loadAgentDefinitions({ cwd: dir, homeDir: tree.home }));
    expect(printed.definitions.reviewer).toMatchObject({
      source: 'project',
      tools: ['Agent', 'Grep', 'Read'],
      allowedAgentTypes: ['Explore'],
      model: 'sonnet',
    });
    expect(printed.definitions.writer).toMatchObject({ source: 'user', disallowedTools: ['Bash'] });
    expect(printed.reports.map((report) => [path.basename(report.file), report.level])).toEqual([
      ['broken.md', 'skipped'],
      ['reviewer.md', 'warning'],
    ]);
  });

  it('prints a table of agent types, then the per-file reports', async () => {
    const code = await agentsListCommand(['--dir', path.join(tree.root, 'project')], { homeDir: tree.home });
    expect(code).toBe(0);
    const lines = output.join('\n').split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+TOOLS\s+MCP SERVERS\s+MODEL$/);
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `))?.split(/\s{2,}/);
    expect(row('reviewer')).toEqual(projectRow('reviewer', 'Agent(Explore), Grep, Read', '-', 'sonnet'));
    expect(row('writer')).toEqual([
      'writer',
      `user ${path.join('~', '.claude', 'agents', 'writer.md')}`,
      'all except Bash',
      '-',
      'inherit',
    ]);
    expect(row('general-purpose')).toEqual(['general-purpose', 'built-in', 'all', '-', 'inherit']);
    expect(row('Explore')).toEqual([
      'Explore',
      'built-in',
      'Bash (read-only), Glob, Grep, Read, WebFetch, WebSearch, TodoWrite',
      '-',
      'haiku',
    ]);
    const reports = lines.slice(lines.indexOf('Reports:') + 1);
    expect(reports).toEqual([
      `  skipped  ${path.join('.claude', 'agents', 'broken.md')}: field "description" is required`,
      expect.stringMatching(
        /^ {2}warning {2}\.claude\/agents\/reviewer\.md: tools: NotebookEdit is not a tool of this runtime/,
      ),
    ]);
  });

  it('rejects an unknown flag with exit code 2', async () => {
    expect(await agentsListCommand(['--verbose'], { homeDir: tree.home })).toBe(2);
    expect(errors.join('\n')).toMatch(/Unknown option '--verbose'[\s\S]*usage: subagents agents/);
    expect(output).toEqual([]);
  });

  it('rejects a --dir that is not a directory with exit code 2', async () => {
    const missing = path.join(tree.root, 'nowhere');
    expect(await agentsListCommand(['--dir', missing], { homeDir: tree.home })).toBe(2);
    expect(errors.join('\n')).toContain(`--dir ${missing} is not a directory`);
  });
});
