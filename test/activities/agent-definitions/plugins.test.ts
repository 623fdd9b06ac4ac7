import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentDefinitions } from '../../../src/project/agent-definitions/load';
import { createDefinitionTree, type DefinitionTree, definitionFile } from './helpers';

let tree: DefinitionTree;
beforeEach(async () => {
  tree = await createDefinitionTree();
});
afterEach(() => tree.cleanup());

const installed = (plugins: Record<string, unknown[]>) => JSON.stringify({ version: 2, plugins });

describe('plugin agents', () => {
  it('loads the agents of installed plugins as <plugin>:<agent>, below user and project definitions', async () => {
    const cache = path.join(tree.root, 'home', '.claude', 'plugins', 'cache', 'market');
    const [reviewerFile] = await tree.write({
      'home/.claude/plugins/cache/market/review-kit/1.0.0/agents/reviewer.md': definitionFile(
        'name: reviewer\ndescription: Reviews\ntools: Read, Grep\npermissionMode: bypassPermissions\nmcpServers: [github]\nhooks:\n  Stop: []\ncolor: blue',
      ),
      'home/.claude/plugins/cache/market/review-kit/1.0.0/.claude-plugin/plugin.json': JSON.stringify({
        name: 'review-kit',
        version: '1.0.0',
      }),
      'home/.claude/plugins/cache/market/docs/2.0.0/agents/nested/writer.md': definitionFile(
        'name: writer\ndescription: Writes',
      ),
      'home/.claude/plugins/cache/market/other/agents/hidden.md': definitionFile(
        'name: hidden\ndescription: Other project',
      ),
      'home/.claude/plugins/installed_plugins.json': installed({
        'review-kit@market': [
          { scope: 'user', installPath: path.join(cache, 'review-kit', '1.0.0'), version: '1.0.0' },
        ],
        'docs@market': [
          {
            scope: 'project',
            projectPath: path.join(tree.root, 'project'),
            installPath: path.join(cache, 'docs', '2.0.0'),
          },
        ],
        'other@market': [
          { scope: 'project', projectPath: path.join(tree.root, 'elsewhere'), installPath: path.join(cache, 'other') },
        ],
      }),
      // A project agent named like the plugin's wins (the colon is the plugin's namespace).
      'project/.claude/agents/mine.md': definitionFile('name: docs:writer\ndescription: Mine'),
    });
    const loaded = await loadAgentDefinitions({ cwd: path.join(tree.root, 'project', 'sub'), homeDir: tree.home });
    const reviewer = loaded.definitions['review-kit:reviewer'];
    expect(reviewer).toMatchObject({
      name: 'review-kit:reviewer',
      source: 'plugin',
      tools: ['Grep', 'Read'],
      color: 'blue',
      file: reviewerFile,
    });
    // Claude Code ignores permissionMode, mcpServers and hooks for plugin agents.
    expect(reviewer).not.toHaveProperty('permissionMode');
    expect(reviewer).not.toHaveProperty('mcpServers');
    expect(reviewer).not.toHaveProperty('unsupported');
    expect(loaded.reports).toContainEqual({
      file: reviewerFile,
      level: 'warning',
      message: 'plugin agents ignore permissionMode, mcpServers, hooks (as in Claude Code)',
    });
    expect(loaded.definitions['docs:writer']).toMatchObject({ description: 'Mine', source: 'project' });
    expect(loaded.reports).toContainEqual(
      expect.objectContaining({
        level: 'skipped',
        message: expect.stringMatching(/project definitions take precedence over plugin ones/),
      }),
    );
    expect(loaded.definitions).not.toHaveProperty('other:hidden');
    expect(loaded.definitions).not.toHaveProperty('reviewer');
  });

  it('a broken or hostile installed_plugins.json is a warning, never an exception', async () => {
    const file = path.join(tree.home, '.claude', 'plugins', 'installed_plugins.json');
    for (const content of [
      '{not json',
      'null',
      '[]',
      JSON.stringify({ plugins: { x: 'no' } }),
      JSON.stringify({ plugins: { 'x@m': [{ scope: 'user', installPath: '/nonexistent/plugin' }] } }),
    ]) {
      await tree.write({ 'home/.claude/plugins/installed_plugins.json': content });
      const loaded = await loadAgentDefinitions({ cwd: path.join(tree.root, 'project'), homeDir: tree.home });
      expect(loaded.reports.filter((report) => report.file === file)).toHaveLength(1);
      expect(Object.keys(loaded.definitions).some((name) => name.includes(':'))).toBe(false);
    }
  });
});
