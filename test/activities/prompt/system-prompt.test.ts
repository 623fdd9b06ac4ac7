import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitSnapshot } from '../../../src/activities/prompt/environment';
import {
  instructionDirectories,
  loadInstructionFiles,
  renderInstructions,
} from '../../../src/activities/prompt/instructions';
import { createAgentStartActivity } from '../../../src/activities/prompt/render-agent-start';
import { createSpawnContextLoader } from '../../../src/activities/spawn-context';
import { builtinAgents } from '../../../src/shared/agents/builtin-agents';
import { createTestRepository, type TestRepository } from '../worktree/helpers';

let repository: TestRepository | undefined;
let home: string;

async function setUp(): Promise<TestRepository> {
  repository = await createTestRepository();
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'prompt-home-'));
  return repository;
}

afterEach(async () => {
  await repository?.cleanup();
  repository = undefined;
});

const startInput = (cwd: string, overrides: Record<string, unknown> = {}) => ({
  agentId: 'agent-1',
  agentType: 'general-purpose',
  depth: 0,
  maxDepth: 3,
  model: 'claude-sonnet-5',
  definitionPrompt: 'You are the test agent.',
  cwd,
  tools: ['Agent', 'SendMessage', 'TaskStop', 'Bash', 'Glob', 'Grep', 'Read', 'Edit', 'Write'],
  permissionMode: 'default' as const,
  forking: false,
  ...overrides,
});

describe('git status in the system prompt', () => {
  it('prints the staged column before the unstaged one, lists tracked changes only, and says it is a snapshot', async () => {
    const repo = await setUp();
    await repo.write('README.md', 'changed, staged\n');
    await repo.git.add('README.md');
    await repo.write('src/app.ts', 'changed, not staged\n');
    await repo.write('staged-new.ts', 'new\n');
    await repo.git.add('staged-new.ts');
    await repo.write('untracked.txt', 'not added\n');
    const snapshot = await gitSnapshot(repo.repo);
    expect(snapshot.isGitRepository).toBe(true);
    const text = snapshot.text!;
    expect(text).toContain('It is a snapshot');
    expect(text).toContain('Current branch: main');
    // As `git status --short` prints them: index (staged) column first, then the working tree column.
    expect(text).toContain('\n  M  README.md');
    expect(text).toContain('\n   M src/app.ts');
    expect(text).toContain('\n  A  staged-new.ts');
    expect(text).not.toContain('untracked.txt');
    expect(text).toMatch(/Recent commits:\n {2}[0-9a-f]{7} /);
  });

  it('says so outside a repository', async () => {
    const plain = await fs.mkdtemp(path.join(os.tmpdir(), 'no-git-'));
    expect(await gitSnapshot(plain)).toEqual({ isGitRepository: false });
  });
});

describe('CLAUDE.md files', () => {
  it("loads the user's file, then every directory from the repository root down to the cwd, nearest last", async () => {
    const repo = await setUp();
    const cwd = path.join(repo.repo, 'packages', 'api');
    await repo.write('packages/api/keep.txt', '');
    await fs.mkdir(path.join(home, '.claude'), { recursive: true });
    await fs.writeFile(path.join(home, '.claude', 'CLAUDE.md'), 'USER RULE');
    await fs.writeFile(path.join(repo.root, 'CLAUDE.md'), 'OUTSIDE THE REPOSITORY');
    await repo.write('CLAUDE.md', 'ROOT RULE');
    await repo.write('.claude/CLAUDE.md', 'ROOT DOT-CLAUDE RULE');
    await repo.write('packages/CLAUDE.md', 'PACKAGES RULE');
    await repo.write('packages/api/CLAUDE.md', 'API RULE');
    await repo.write('packages/api/CLAUDE.local.md', 'API LOCAL RULE');
    expect(instructionDirectories(cwd)).toEqual([repo.repo, path.join(repo.repo, 'packages'), cwd]);
    const files = loadInstructionFiles(cwd, home);
    expect(files.map((file) => [file.kind, file.content])).toEqual([
      ['user', 'USER RULE'],
      ['project', 'ROOT RULE'],
      ['project', 'ROOT DOT-CLAUDE RULE'],
      ['project', 'PACKAGES RULE'],
      ['project', 'API RULE'],
      ['local', 'API LOCAL RULE'],
    ]);
    const text = renderInstructions(files)!;
    expect(text).toContain(
      `Contents of ${path.join(repo.repo, 'packages', 'api', 'CLAUDE.md')} (project instructions, checked into the repository):\n\nAPI RULE`,
    );
    expect(text.indexOf('USER RULE')).toBeLessThan(text.indexOf('ROOT RULE'));
    expect(text.indexOf('PACKAGES RULE')).toBeLessThan(text.indexOf('API RULE'));
  });

  it('cuts a huge file and skips a directory named CLAUDE.md', async () => {
    const repo = await setUp();
    await repo.write('CLAUDE.md', 'x'.repeat(50_000));
    await fs.mkdir(path.join(repo.repo, '.claude', 'CLAUDE.md'), { recursive: true });
    const [file, ...rest] = loadInstructionFiles(repo.repo, home);
    expect(rest).toEqual([]);
    expect(file!.content.length).toBeLessThan(41_000);
    expect(file!.content).toContain('[... cut at 40000 characters]');
  });
});

describe('renderAgentStart', () => {
  const activity = () => createAgentStartActivity({ homeDir: home, loadSpawnContext: createSpawnContextLoader(home) });

  it('gives a root the full prompt and a first-message context with its identity and roster', async () => {
    const repo = await setUp();
    await repo.write('CLAUDE.md', 'PROJECT RULE');
    const start = await activity()(startInput(repo.repo));
    expect(start.systemPrompt.startsWith('You are the test agent.')).toBe(true);
    for (const part of [
      '# Using your tools',
      'side by side',
      '# Git',
      'path:line',
      '<env>',
      `Working directory: ${repo.repo}`,
      '# Git status',
      'PROJECT RULE',
    ]) {
      expect(start.systemPrompt).toContain(part);
    }
    expect(start.systemPrompt).not.toContain('# Notes for subagents');
    expect(start.systemPrompt).not.toContain('agent-1');
    expect(start.context).toMatch(
      /^<system-reminder>\n# This agent\nagentId: agent-1\nYou are the root of this agent tree/,
    );
    expect(start.context).toContain('# Agent types you can start with the Agent tool\n- Explore:');
    expect(start.context.endsWith('</system-reminder>')).toBe(true);
    expect(Object.keys(start.spawnContext!.loaded.definitions).sort()).toEqual(Object.keys(builtinAgents).sort());
  });

  it('gives agents of one type and place the same system prompt bytes, whatever their identity', async () => {
    const repo = await setUp();
    const one = await activity()(startInput(repo.repo, { agentId: 'r.1', parentAgentId: 'r', depth: 1, name: 'one' }));
    const two = await activity()(startInput(repo.repo, { agentId: 'r.2', parentAgentId: 'r', depth: 1 }));
    expect(one.systemPrompt).toBe(two.systemPrompt);
    expect(one.systemPrompt).toContain('# Notes for subagents');
    expect(one.context).toContain(
      'agentId: r.1\nName: one (other agents reach you with SendMessage to: "one")\nStarted by: r.',
    );
  });

  it('gives Explore a slim prompt: no guidance, git status or CLAUDE.md, and no roster without the Agent tool', async () => {
    const repo = await setUp();
    await repo.write('CLAUDE.md', 'PROJECT RULE');
    const explore = builtinAgents.Explore!;
    const start = await activity()(
      startInput(repo.repo, {
        agentId: 'r.1',
        parentAgentId: 'r',
        depth: 1,
        agentType: 'Explore',
        definitionPrompt: explore.prompt,
        tools: explore.tools,
        oneShot: true,
      }),
    );
    expect(start.systemPrompt).toContain('READ-ONLY');
    expect(start.systemPrompt).toContain('<env>');
    for (const part of ['PROJECT RULE', '# Git status', '# Using your tools'])
      expect(start.systemPrompt).not.toContain(part);
    expect(start.context).not.toContain('Agent types');
    expect(start.spawnContext).toBeUndefined();
  });
});
