import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEdit } from '../../../src/activities/tools/edit';
import { runGlob } from '../../../src/activities/tools/glob';
import { runGrep } from '../../../src/activities/tools/grep';
import { runRead } from '../../../src/activities/tools/read';
import { runWrite } from '../../../src/activities/tools/write';
import { openWorkspace, realpathAllowMissing, resolveInWorkspace } from '../../../src/activities/tools/workspace';
import { createTestWorkspace, type TestWorkspace } from './helpers';

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace();
  await workspace.write('inside.txt', 'inside\n');
  await fs.writeFile(path.join(workspace.outside, 'secret.txt'), 'secret\n');
});
afterEach(() => workspace.cleanup());

describe('resolveInWorkspace', () => {
  it('resolves relative paths against cwd, including .. that stays inside', async () => {
    await fs.mkdir(path.join(workspace.root, 'sub'));
    const opened = await openWorkspace({
      agentId: 'a',
      workspaceRoot: workspace.root,
      cwd: path.join(workspace.root, 'sub'),
    });
    expect(await resolveInWorkspace(opened, '../inside.txt', 'read')).toBe(path.join(workspace.root, 'inside.txt'));
    expect(await resolveInWorkspace(opened, 'new/file.txt', 'write')).toBe(
      path.join(workspace.root, 'sub', 'new', 'file.txt'),
    );
  });

  it('refuses .. escapes, absolute paths outside and symlink escapes', async () => {
    await fs.symlink(workspace.outside, path.join(workspace.root, 'link-dir'));
    await fs.symlink(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'link-file'));
    await fs.symlink(path.join(workspace.outside, 'not-yet.txt'), path.join(workspace.root, 'dangling'));
    const opened = await openWorkspace({ agentId: 'a', workspaceRoot: workspace.root, cwd: workspace.root });
    for (const raw of [
      '../outside/secret.txt',
      path.join(workspace.outside, 'secret.txt'),
      'link-dir/secret.txt',
      'link-file',
      'link-dir/new.txt',
      'dangling',
      '/etc/passwd',
    ]) {
      await expect(resolveInWorkspace(opened, raw, 'write'), raw).rejects.toThrow(/^PathOutsideWorkspace: /);
    }
    await expect(resolveInWorkspace(opened, 'link-file', 'read')).rejects.toThrow(/through a symbolic link/);
  });

  it('allows symlinks that stay inside the workspace', async () => {
    await fs.mkdir(path.join(workspace.root, 'real'));
    await fs.symlink(path.join(workspace.root, 'real'), path.join(workspace.root, 'alias'));
    const opened = await openWorkspace({ agentId: 'a', workspaceRoot: workspace.root, cwd: workspace.root });
    expect(await resolveInWorkspace(opened, 'alias/x.txt', 'write')).toBe(path.join(workspace.root, 'real', 'x.txt'));
  });

  it("treats the agent's own part of a results directory as read-only, and the rest of it as outside", async () => {
    const opened = await openWorkspace({ agentId: 'a', workspaceRoot: workspace.root, cwd: workspace.root }, [
      workspace.outside,
    ]);
    expect(await resolveInWorkspace(opened, path.join(workspace.outside, 'a', 'saved.txt'), 'read')).toBe(
      path.join(workspace.outside, 'a', 'saved.txt'),
    );
    await expect(resolveInWorkspace(opened, path.join(workspace.outside, 'a', 'saved.txt'), 'write')).rejects.toThrow(
      /read-only/,
    );
    await expect(resolveInWorkspace(opened, path.join(workspace.outside, 'secret.txt'), 'read')).rejects.toThrow(
      /^PathOutsideWorkspace: /,
    );
  });

  it('refuses a working directory outside the workspace', async () => {
    await expect(
      openWorkspace({ agentId: 'a', workspaceRoot: workspace.root, cwd: workspace.outside }),
    ).rejects.toThrow(/^PathOutsideWorkspace: the working directory/);
  });

  it('follows dangling symlinks when resolving missing paths', async () => {
    const link = path.join(workspace.root, 'dangling');
    await fs.symlink('../outside/later/file.txt', link);
    expect(await realpathAllowMissing(link)).toBe(path.join(workspace.outside, 'later', 'file.txt'));
  });
});

describe('every file tool refuses paths outside the workspace', () => {
  it('Read, Write, Edit, Glob and Grep return PathOutsideWorkspace errors and touch nothing', async () => {
    await fs.symlink(workspace.outside, path.join(workspace.root, 'escape'));
    const secret = path.join(workspace.outside, 'secret.txt');
    const results = [
      await runRead(workspace.call({ file_path: '../outside/secret.txt' }), workspace.env),
      await runRead(workspace.call({ file_path: secret }), workspace.env),
      await runRead(workspace.call({ file_path: 'escape/secret.txt' }), workspace.env),
      await runWrite(workspace.call({ file_path: 'escape/planted.txt', content: 'x' }), workspace.env),
      await runWrite(workspace.call({ file_path: '../outside/planted.txt', content: 'x' }), workspace.env),
      await runEdit(workspace.call({ file_path: secret, old_string: 'secret', new_string: 'leaked' }), workspace.env),
      await runGlob(workspace.call({ pattern: '*', path: '../outside' }), workspace.env),
      await runGlob(workspace.call({ pattern: `${workspace.outside}/*.txt` }), workspace.env),
      await runGrep(workspace.call({ pattern: 'secret', path: 'escape' }), workspace.env),
    ];
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^PathOutsideWorkspace: /);
    }
    expect(await fs.readdir(workspace.outside)).toEqual(['secret.txt']);
    expect(await fs.readFile(secret, 'utf8')).toBe('secret\n');
  });

  it('does not list or search through symlinks inside the workspace', async () => {
    await fs.symlink(workspace.outside, path.join(workspace.root, 'escape'));
    await fs.symlink(path.join(workspace.outside, 'secret.txt'), path.join(workspace.root, 'secret-link.txt'));
    const glob = await runGlob(workspace.call({ pattern: '**/*' }), workspace.env);
    expect(glob.content).toBe('inside.txt');
    const grep = await runGrep(workspace.call({ pattern: 'secret' }), workspace.env);
    expect(grep.content).toMatch(/^No matches found/);
  });
});

describe('saved tool results', () => {
  it("another agent's Read, Glob and Grep cannot list or read an agent's saved outputs; the agent itself can", async () => {
    await workspace.write('log.txt', Array.from({ length: 2000 }, (_, index) => `match ${index}`).join('\n'));
    const big = await runGrep(
      workspace.call(
        { pattern: 'match', output_mode: 'content', head_limit: 5000 },
        { context: { maxResultChars: 4000 } },
      ),
      workspace.env,
    );
    const saved = big.replacement!.path;
    const ownDir = path.dirname(saved);
    expect(ownDir).toBe(path.join(workspace.resultsDir, 'agent-1'));
    const asOther = { context: { agentId: 'agent-2' } };
    const refused = [
      await runRead(workspace.call({ file_path: saved }, asOther), workspace.env),
      await runGlob(workspace.call({ pattern: '**/*', path: workspace.resultsDir }, asOther), workspace.env),
      await runGlob(workspace.call({ pattern: '*.txt', path: ownDir }, asOther), workspace.env),
      await runGlob(workspace.call({ pattern: `${ownDir}/*.txt` }, asOther), workspace.env),
      await runGrep(workspace.call({ pattern: 'match', path: workspace.resultsDir }, asOther), workspace.env),
      await runGrep(workspace.call({ pattern: 'match', path: saved }, asOther), workspace.env),
    ];
    for (const result of refused) {
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/^PathOutsideWorkspace: /);
    }
    expect((await runRead(workspace.call({ file_path: saved, limit: 1 }), workspace.env)).content).toMatch(
      /^ {5}1\tlog\.txt:1:match 0\n/,
    );
    expect((await runGlob(workspace.call({ pattern: '*.txt', path: ownDir }), workspace.env)).content).toBe(saved);
    expect((await runGrep(workspace.call({ pattern: 'match 1999$', path: ownDir }), workspace.env)).content).toBe(
      `Found 1 file\n${saved}`,
    );
  });
});

describe('the memory: user directory', () => {
  it('is readable and writable beside the workspace, and nothing else outside it is', async () => {
    const memoryDir = path.join(workspace.outside, '.claude', 'agent-memory', 'diarist');
    const opened = await openWorkspace({ agentId: 'a', workspaceRoot: workspace.root, cwd: workspace.root, memoryDir });
    expect(await resolveInWorkspace(opened, path.join(memoryDir, 'MEMORY.md'), 'write')).toBe(
      path.join(await realpathAllowMissing(memoryDir), 'MEMORY.md'),
    );
    await expect(resolveInWorkspace(opened, path.join(workspace.outside, 'secret.txt'), 'read')).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(resolveInWorkspace(opened, path.join(memoryDir, '..', 'other', 'x.md'), 'write')).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it('refuses a tool context whose memory directory is not one (hostile or buggy input)', async () => {
    for (const memoryDir of [
      '/etc',
      workspace.outside,
      'relative/.claude/agent-memory/x',
      path.join(workspace.outside, '.claude', 'agent-memory'),
      path.join(workspace.outside, '.claude', 'agent-memory', '..'),
    ]) {
      await expect(
        openWorkspace({ agentId: 'a', workspaceRoot: workspace.root, cwd: workspace.root, memoryDir }),
      ).rejects.toThrow(/not an agent memory directory/);
    }
  });
});
