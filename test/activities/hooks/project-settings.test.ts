/** The settings loader on real files (docs/configuration.md, "Settings files"). */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { agentsListCommand } from '../../../src/cli/commands/agents-list';
import { findProjectDir, loadProjectSettings } from '../../../src/project/settings/project-settings';
import { parseHooksConfig } from '../../../src/project/hooks-schema';

function tree(files: Record<string, string>): { root: string; home: string; project: string } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'settings-')));
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  const project = path.join(root, 'project');
  mkdirSync(path.join(project, 'sub'), { recursive: true });
  mkdirSync(path.join(root, 'home'), { recursive: true });
  return { root, home: path.join(root, 'home'), project };
}

const json = (value: unknown) => JSON.stringify(value);

describe('loadProjectSettings', () => {
  it('reads user, project and local files: rules of all, hooks merged, path rules anchored', async () => {
    const { home, project } = tree({
      'home/.claude/settings.json': json({
        permissions: { deny: ['Read(~/.ssh/**)'] },
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'user-stop' }] }] },
      }),
      'project/.claude/settings.json': json({
        permissions: { allow: ['Bash(git diff:*)'], ask: ['Bash(git push:*)'], deny: ['Edit(/config/**)'] },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check', timeout: 5 }] }] },
      }),
      'project/.claude/settings.local.json': json({ permissions: { allow: ['WebFetch'] } }),
    });
    const settings = await loadProjectSettings(path.join(project, 'sub'), home);
    expect(settings.projectDir).toBe(project);
    expect(settings.files).toEqual([
      path.join(home, '.claude', 'settings.json'),
      path.join(project, '.claude', 'settings.json'),
      path.join(project, '.claude', 'settings.local.json'),
    ]);
    expect(settings.problems).toBeUndefined();
    expect(settings.permissions?.allow?.map((rule) => rule.text)).toEqual(['Bash(git diff:*)', 'WebFetch']);
    expect(settings.permissions?.ask?.map((rule) => rule.text)).toEqual(['Bash(git push:*)']);
    expect(settings.permissions?.deny).toEqual([
      {
        tool: 'Read',
        content: `/${path.join(home, '.ssh/**')}`,
        text: 'Read(~/.ssh/**)',
        file: path.join(home, '.claude', 'settings.json'),
      },
      {
        tool: 'Edit',
        content: '/config/**',
        root: project,
        text: 'Edit(/config/**)',
        file: path.join(project, '.claude', 'settings.json'),
      },
    ]);
    expect(settings.hooks).toEqual({
      Stop: [{ hooks: [{ type: 'command', command: 'user-stop' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check', timeout: 5 }] }],
    });
  });

  it('no settings files: nothing, and the project is the cwd', async () => {
    const { home, project } = tree({});
    expect(await findProjectDir(path.join(project, 'sub'), home)).toBe(path.join(project, 'sub'));
    expect(await loadProjectSettings(project, home)).toEqual({ projectDir: project, files: [] });
  });

  it('a malformed file is a problem naming it, and then no allow rule of any file applies (never wider); deny rules of the others still do', async () => {
    for (const broken of [
      '{ "permissions": ',
      json({ permissions: ['Bash'] }),
      json({ permissions: { allow: 'Bash' } }),
      'null',
    ]) {
      const { home, project } = tree({
        'project/.claude/settings.json': json({ permissions: { allow: ['Bash'], deny: ['Bash(rm:*)'] } }),
        'project/.claude/settings.local.json': broken,
      });
      const settings = await loadProjectSettings(project, home);
      expect(settings.problems).toHaveLength(1);
      expect(settings.problems![0]).toContain(path.join(project, '.claude', 'settings.local.json'));
      expect(settings.problems![0]).toContain('no allow rule of any settings file applies');
      expect(settings.permissions?.allow).toBeUndefined();
      expect(settings.permissions?.deny?.map((rule) => rule.text)).toEqual(['Bash(rm:*)']);
    }
  });

  it('bad rule entries are dropped one by one with a sentence each', async () => {
    const { home, project } = tree({
      'project/.claude/settings.json': json({ permissions: { deny: ['Bash(rm:*)', 42, 'Bash(rm', 'Frob(x)'] } }),
    });
    const settings = await loadProjectSettings(project, home);
    expect(settings.permissions?.deny?.map((rule) => rule.text)).toEqual(['Bash(rm:*)']);
    expect(settings.problems).toEqual([
      expect.stringMatching(/permissions\.deny\[1\] must be a string rule/),
      expect.stringMatching(/permissions\.deny rule "Bash\(rm": not a tool name/),
      expect.stringMatching(/permissions\.deny rule "Frob\(x\)": rules with content are understood for/),
    ]);
  });
});

describe('parseHooksConfig', () => {
  it('keeps the good entries and says what to fix in the bad ones', () => {
    const parsed = parseHooksConfig({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: 'ok' },
            { type: 'command' },
            { type: 'mcp_tool', server: 'memory', tool: 'judge' },
            { type: 'command', command: 'slow', timeout: 99999 },
          ],
        },
        { matcher: 7, hooks: [] },
        'nonsense',
      ],
      PostToolUse: { matcher: 'x' },
      InstructionsLoaded: [],
      Bogus: [],
    });
    expect(parsed.hooks).toEqual({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'ok' }] }] });
    expect(parsed.problems).toEqual([
      'hooks.PreToolUse[0].hooks[1]: command: command must be a string; dropped',
      'hooks.PreToolUse[0].hooks[2]: hooks of type "mcp_tool" are not supported (use "command", "http", "prompt", "agent"); dropped',
      'hooks.PreToolUse[0].hooks[3]: timeout: timeout must be at most 600 seconds; dropped',
      'hooks.PreToolUse[1]: matcher: must be a string (a tool name, A|B, or a regular expression); dropped',
      expect.stringMatching(/^hooks\.PreToolUse\[2\]: .*; dropped$/),
      'hooks.PostToolUse: must be a list of {matcher, hooks}; ignored',
      expect.stringMatching(/^hooks\.InstructionsLoaded: this runtime does not fire InstructionsLoaded/),
      expect.stringMatching(/^hooks\.Bogus: unknown event/),
    ]);
  });
  it('never throws on hostile values', () => {
    for (const value of [
      null,
      undefined,
      1,
      'x',
      [],
      [1],
      { PreToolUse: null },
      { PreToolUse: [null] },
      { Stop: [{ hooks: [null, 1, 'x'] }] },
    ]) {
      expect(() => parseHooksConfig(value)).not.toThrow();
    }
    expect(parseHooksConfig([]).problems[0]).toMatch(/hooks must be a mapping/);
  });
});

describe('subagents agents with settings and hooks', () => {
  it("lists each agent type's hooks, the settings' hooks and rules with their files", async () => {
    const { home, project } = tree({
      'project/.claude/settings.json': json({
        permissions: { allow: ['Bash(git diff:*)'], deny: ['Bash(rm:*)'] },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check' }] }] },
      }),
      'project/.claude/agents/guarded.md':
        '---\nname: guarded\ndescription: Guarded\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: verify\n---\nYou are guarded.\n',
    });
    const output: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
    try {
      expect(await agentsListCommand(['--dir', project], { homeDir: home })).toBe(0);
      expect(await agentsListCommand(['--dir', project, '--json'], { homeDir: home })).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const lines = output[0]!.split('\n');
    expect(lines).toContain('Agent hooks (front matter; Stop runs as SubagentStop in a subagent):');
    expect(lines).toContain('  guarded  Stop: verify');
    expect(lines).toContain(
      `Settings (${path.join('.claude', 'settings.json')}), for every agent of a tree started here:`,
    );
    expect(lines).toContain('  hook  PreToolUse[Bash]: check');
    expect(lines).toContain(`  rule  deny: Bash(rm:*) (${path.join('.claude', 'settings.json')})`);
    expect(lines).toContain(`  rule  allow: Bash(git diff:*) (${path.join('.claude', 'settings.json')})`);
    const printed = JSON.parse(output[1]!) as {
      definitions: Record<string, { hooks?: unknown }>;
      settings: { permissions: unknown };
    };
    expect(printed.definitions.guarded!.hooks).toEqual({ Stop: [{ hooks: [{ type: 'command', command: 'verify' }] }] });
    expect(printed.settings.permissions).toMatchObject({
      deny: [{ text: 'Bash(rm:*)' }],
      allow: [{ text: 'Bash(git diff:*)' }],
    });
  });

  it('lists the sandbox settings a tree gets, WebFetch domain rules and Read deny rules included, and says a file cannot turn it off', async () => {
    const { home, project } = tree({
      'project/.claude/settings.json': json({
        sandbox: {
          enabled: false,
          filesystem: { allowWrite: ['~/.cache/pip'] },
          network: { allowedDomains: ['pypi.org'] },
        },
        permissions: { allow: ['WebFetch(domain:docs.python.org)'], deny: ['Read(./.env)'] },
      }),
    });
    const settings = await loadProjectSettings(project, home);
    expect(settings.sandbox).toEqual({
      filesystem: { allowWrite: ['~/.cache/pip'], denyRead: [path.join(project, '.env')] },
      network: { allowedDomains: ['pypi.org', 'docs.python.org'] },
    });
    expect(settings.problems?.join()).toContain('sandbox.enabled: false is ignored');
    const output: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
    try {
      expect(await agentsListCommand(['--dir', project], { homeDir: home })).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const lines = output[0]!.split('\n');
    expect(lines).toContain('  sandbox  allowWrite: ~/.cache/pip');
    expect(lines).toContain('  sandbox  allowedDomains: pypi.org, docs.python.org');
  });
});
