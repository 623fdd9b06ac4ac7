import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { visibilityWarning } from '../../../src/cli/commands/transcript';
import { runGlob } from '../../../src/activities/tools/glob';
import { runGrep } from '../../../src/activities/tools/grep';
import { findRipgrep } from '../../../src/activities/tools/ripgrep';
import { runRead } from '../../../src/activities/tools/read';
import { makeOutputDirectory, runtimeOutputGitignore } from '../../../src/project/runtime-output';
import { prepareBaseDir } from '../../../src/activities/worktree/base-dir';
import { writeClaudeCodeLayout } from '../../../src/transcript/claude-layout';
import type { AgentTranscript } from '../../../src/transcript/transcript-types';
import { createTestWorkspace, type TestWorkspace } from './helpers';
import { freshForEachTest } from '../../helpers/unit-fixture';

const run = promisify(execFile);
const ripgrep = await findRipgrep();
const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });

/** A root agent's transcript whose text names the same word the user's code does. */
function transcriptOf(cwd: string): AgentTranscript {
  const meta = {
    type: 'meta' as const,
    agentId: 'root-1',
    agentType: 'Explore',
    description: null,
    parentAgentId: null,
    parentToolUseId: null,
    depth: 0,
    model: 'm',
    worktree: null,
    cwd,
    gitBranch: 'main',
  };
  const messages = [
    { message: { role: 'user' as const, content: 'find the workflowMarker definitions' }, timestampMs: 1_000 },
  ];
  return { meta, messages, compactions: [], runIds: ['r'], childIds: [] };
}

// Both listing engines: rg when installed, the built-in walker always.
describe.each([
  { engine: 'ripgrep', option: (ripgrep ?? false) as string | false, skip: !ripgrep },
  { engine: 'built-in walker', option: false as const, skip: false },
])("the runtime's own output in a git repository, with the $engine", ({ option, skip }) => {
  let workspace: TestWorkspace;
  let repo: string;
  beforeEach(async () => {
    workspace = await createTestWorkspace({ ripgrep: option });
    repo = workspace.root;
    await workspace.write('src/app.ts', 'export const workflowMarker = 1;\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-q', '-m', 'init');
    // What the runtime does for an isolated subagent: a real worktree under .subagents/, excluded through info/exclude only.
    await fs.appendFile(path.join(repo, '.git', 'info', 'exclude'), '.subagents/\n');
    await git(repo, 'worktree', 'add', '-q', '-b', 'subagents/agent-2', '.subagents/worktrees/agent-2');
    // What `subagents transcript <id> --claude-dir out` does in the repository.
    await writeClaudeCodeLayout(path.join(repo, 'out'), [transcriptOf(repo)]);
  });
  afterEach(() => workspace.cleanup());

  describe.skipIf(skip)('Glob and Grep', () => {
    it("list and search only the user's code, not worktrees or exported transcripts", async () => {
      const glob = await runGlob(workspace.call({ pattern: '**/*' }), workspace.env);
      expect(glob.content.split('\n').sort()).toEqual(['src/app.ts']);
      const grep = await runGrep(workspace.call({ pattern: 'workflowMarker' }), workspace.env);
      expect(grep.content).toBe('Found 1 file\nsrc/app.ts');
      // A model's glob cannot reach into .subagents either.
      const globbed = await runGrep(
        workspace.call({ pattern: 'workflowMarker', glob: '.subagents/**' }),
        workspace.env,
      );
      expect(globbed.content).toMatch(/^No matches found/);
    });

    it('still search a path inside them when it is given explicitly', async () => {
      const inWorktree = await runGlob(
        workspace.call({ pattern: '**/*.ts', path: '.subagents/worktrees/agent-2' }),
        workspace.env,
      );
      expect(inWorktree.content).toBe('.subagents/worktrees/agent-2/src/app.ts');
      const grep = await runGrep(
        workspace.call({ pattern: 'workflowMarker', path: '.subagents/worktrees/agent-2' }),
        workspace.env,
      );
      expect(grep.content).toBe('Found 1 file\n.subagents/worktrees/agent-2/src/app.ts');
    });
  });

  it('lets Read and a Grep of the file read an exported transcript named by its path', async () => {
    const session = (await fs.readdir(path.join(repo, 'out', 'projects', repo.replace(/[^a-zA-Z0-9]/g, '-')))).find(
      (name) => name.endsWith('.jsonl'),
    )!;
    const file = path.join('out', 'projects', repo.replace(/[^a-zA-Z0-9]/g, '-'), session);
    const read = await runRead(workspace.call({ file_path: file }), workspace.env);
    expect(read.isError).toBe(false);
    expect(read.content).toContain('find the workflowMarker definitions');
    if (skip) return;
    const grep = await runGrep(workspace.call({ pattern: 'workflowMarker', path: file }), workspace.env);
    expect(grep.content).toBe(`Found 1 file\n${file}`);
  });

  it('keeps the export out of git status too', async () => {
    const { stdout } = await git(repo, 'status', '--porcelain', '--untracked-files=all');
    expect(stdout).toBe('');
  });
});

describe('a worktree directory configured inside the repository', () => {
  let workspace: TestWorkspace;
  beforeEach(async () => {
    workspace = await createTestWorkspace();
    await workspace.write('src/app.ts', 'export const workflowMarker = 1;\n');
    await git(workspace.root, 'init', '-q', '-b', 'main');
    await git(workspace.root, 'add', '.');
    await git(workspace.root, 'commit', '-q', '-m', 'init');
  });
  afterEach(() => workspace.cleanup());

  it('is marked when the runtime creates it, so Glob in the main checkout skips its worktrees', async () => {
    const baseDir = await prepareBaseDir(path.join(workspace.root, 'trees', 'agents'));
    await git(workspace.root, 'worktree', 'add', '-q', '-b', 'subagents/agent-3', path.join(baseDir, 'agent-3'));
    const glob = await runGlob(workspace.call({ pattern: '**/*.ts' }), workspace.env);
    expect(glob.content).toBe('src/app.ts');
    const inWorktree = await runGlob(
      workspace.call({ pattern: '**/*.ts' }, { context: { cwd: path.join(baseDir, 'agent-3') } }),
      workspace.env,
    );
    expect(inWorktree.content).toBe('src/app.ts');
  });
});

describe('makeOutputDirectory', () => {
  let workspace: TestWorkspace;
  freshForEachTest(createTestWorkspace, (created) => (workspace = created));

  it('marks only the first directory it creates, never one that existed', async () => {
    await workspace.write('docs/guide.md', 'workflowMarker\n');
    const created = await makeOutputDirectory(path.join(workspace.root, 'docs', 'export', 'deep'));
    expect(created).toBe(path.join(workspace.root, 'docs', 'export'));
    expect(await fs.readFile(path.join(workspace.root, 'docs', 'export', '.gitignore'), 'utf8')).toBe(
      runtimeOutputGitignore,
    );
    await expect(fs.access(path.join(workspace.root, 'docs', '.gitignore'))).rejects.toThrow();
    await expect(fs.access(path.join(workspace.root, 'docs', 'export', 'deep', '.gitignore'))).rejects.toThrow();
    expect(await makeOutputDirectory(path.join(workspace.root, 'docs'))).toBeUndefined();
    await workspace.write('docs/export/deep/t.jsonl', 'workflowMarker\n');
    const glob = await runGlob(workspace.call({ pattern: '**/*' }), workspace.env);
    expect(glob.content).toBe('docs/guide.md');
  });
});

describe('transcript --claude-dir: the warning for an export git and the tools would see', () => {
  let workspace: TestWorkspace;
  beforeEach(async () => {
    workspace = await createTestWorkspace();
    await git(workspace.root, 'init', '-q', '-b', 'main');
  });
  afterEach(() => workspace.cleanup());

  it('warns when the export went, unmarked, into a directory that existed inside the repository', async () => {
    const transcript = transcriptOf(workspace.root);
    const projectDir = path.join(workspace.root, 'existing', 'projects', workspace.root.replace(/[^a-zA-Z0-9]/g, '-'));
    await fs.mkdir(projectDir, { recursive: true });
    const written = await writeClaudeCodeLayout(path.join(workspace.root, 'existing'), [transcript]);
    expect(written.marked).toBeUndefined();
    expect(await visibilityWarning(written)).toMatch(
      new RegExp(
        `^warning: ${projectDir} existed already and is not ignored in the repository ${workspace.root}.*~/\\.claude\\.$`,
      ),
    );
  });

  it('says nothing for a new directory (marked), a second export into it, or a directory outside any repository', async () => {
    const transcript = transcriptOf(workspace.root);
    const first = await writeClaudeCodeLayout(path.join(workspace.root, 'out'), [transcript]);
    expect(first.marked).toBe(path.join(workspace.root, 'out'));
    expect(await visibilityWarning(first)).toBeUndefined();
    const second = await writeClaudeCodeLayout(path.join(workspace.root, 'out'), [transcript]);
    expect(second.marked).toBeUndefined();
    expect(await visibilityWarning(second)).toBeUndefined();
    await fs.mkdir(path.join(workspace.outside, 'config', 'projects', workspace.root.replace(/[^a-zA-Z0-9]/g, '-')), {
      recursive: true,
    });
    const outside = await writeClaudeCodeLayout(path.join(workspace.outside, 'config'), [transcript]);
    expect(await visibilityWarning(outside)).toBeUndefined();
  });
});
