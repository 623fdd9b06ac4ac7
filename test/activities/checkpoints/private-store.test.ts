import type { ApplicationFailure } from '@temporalio/common';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointActivities } from '../../../src/activities/checkpoints/index';
import { measureDirectory, privateStoreDir } from '../../../src/checkpoints/private-store';
import { ErrorType } from '../../../src/shared/protocol/errors';
import { bash, expectRecorded, git, plainDirectory, treeListing } from './helpers';

let directory: string;
let home: string;
let env: NodeJS.ProcessEnv;
let activities: ReturnType<typeof createCheckpointActivities>;

beforeEach(async () => {
  directory = await plainDirectory();
  home = await plainDirectory('checkpoint-home-');
  env = { ...process.env, SUBAGENTS_HOME: path.join(home, 'state') };
  activities = createCheckpointActivities({ env, homeDir: home });
});
afterEach(async () => {
  await fs.rm(directory, { recursive: true, force: true });
  await fs.rm(home, { recursive: true, force: true });
});

async function write(relative: string, content: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(directory, relative)), { recursive: true });
  await fs.writeFile(path.join(directory, relative), content);
}

describe('the private store of a directory outside git', () => {
  it('records under SUBAGENTS_HOME/checkpoints/<hash>.git, leaving no .git in the directory, node_modules out', async () => {
    await write('notes.md', 'v1\n');
    await write('node_modules/dep/index.js', 'module.exports = 1;\n');
    bash(directory, 'mkdir -p out && echo made > out/by-bash.txt');
    const first = expectRecorded(
      await activities.checkpointWorkspace({ agentId: 'demo-root', cwd: directory, turn: 0 }),
    );
    const gitDir = privateStoreDir(directory, env, home);
    expect(gitDir).toMatch(new RegExp(`^${path.join(home, 'state', 'checkpoints')}/[0-9a-f]{16}\\.git$`));
    expect(first).toMatchObject({
      store: 'private',
      gitDir,
      root: directory,
      changed: ['notes.md', 'out/by-bash.txt'],
    });
    expect(treeListing(gitDir, first.tree)).toEqual(['100644 notes.md', '100644 out/by-bash.txt']);
    expect(git(gitDir, 'rev-parse', first.ref).trim()).toBe(first.commit);
    expect((await fs.readdir(directory)).sort()).toEqual(['node_modules', 'notes.md', 'out']);

    await write('notes.md', 'v2\n');
    await fs.rm(path.join(directory, 'out'), { recursive: true });
    const second = expectRecorded(
      await activities.checkpointWorkspace({ agentId: 'demo-root', cwd: directory, turn: 1, previous: first }),
    );
    expect(second.changed).toEqual(['notes.md', 'out/by-bash.txt']);
    expect(await activities.workspaceChangesSince({ checkpoint: first })).toEqual([
      { path: 'notes.md', status: 'modified' },
      { path: 'out/by-bash.txt', status: 'deleted' },
    ]);
    expect(await activities.restoreCheckpoint({ checkpoint: first, latest: second })).toEqual({
      kind: 'restored',
      changes: [
        { path: 'notes.md', status: 'modified' },
        { path: 'out/by-bash.txt', status: 'added' },
      ],
    });
    expect(await fs.readFile(path.join(directory, 'notes.md'), 'utf8')).toBe('v1\n');
    expect(await fs.readFile(path.join(directory, 'out/by-bash.txt'), 'utf8')).toBe('made\n');
    expect(await fs.readFile(path.join(directory, 'node_modules/dep/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(await activities.dropCheckpoints({ root: directory, agentId: 'demo-root' })).toBe(2);
  });

  it("reads only this worker's store for the directory, whatever gitDir the checkpoint names", async () => {
    await write('a.txt', 'a\n');
    const checkpoint = expectRecorded(await activities.checkpointWorkspace({ agentId: 'a', cwd: directory, turn: 0 }));
    const elsewhere = await plainDirectory('checkpoint-elsewhere-');
    try {
      git(elsewhere, 'init', '-q', '--bare');
      for (const gitDir of [elsewhere, undefined]) {
        const forged = { ...checkpoint, gitDir } as typeof checkpoint;
        const failure = await activities.restoreCheckpoint({ checkpoint: forged }).then(
          () => undefined,
          (error: unknown) => error as ApplicationFailure,
        );
        expect(failure?.type).toBe(ErrorType.CheckpointUnavailable);
        expect(failure?.message).toContain(`its store for that directory is ${checkpoint.gitDir}`);
      }
      const otherHome = createCheckpointActivities({ env: { ...env, SUBAGENTS_HOME: elsewhere }, homeDir: home });
      const failure = await otherHome.workspaceChangesSince({ checkpoint }).then(
        () => undefined,
        (error: unknown) => error as ApplicationFailure,
      );
      expect(failure?.type).toBe(ErrorType.CheckpointUnavailable);
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('lets two agents start on one directory at once: both use the one store', async () => {
    await write('a.txt', 'a\n');
    const [one, two] = await Promise.all(
      ['agent-a', 'agent-b'].map((agentId) => activities.checkpointWorkspace({ agentId, cwd: directory, turn: 0 })),
    );
    expect(expectRecorded(one!).gitDir).toBe(expectRecorded(two!).gitDir);
    expect(
      (await fs.readdir(path.join(home, 'state', 'checkpoints'))).filter((name) => name.endsWith('.git')),
    ).toHaveLength(1);
  });

  it('refuses the home directory, keeping the conversation only, and creates no store', async () => {
    const result = await activities.checkpointWorkspace({ agentId: 'a', cwd: home, turn: 0 });
    expect(result).toEqual({ kind: 'unavailable', reason: expect.stringContaining('is the home directory') });
    expect(result.kind === 'unavailable' && result.reason).toContain('the conversation only');
    await expect(fs.lstat(path.join(home, 'state'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a directory past 200 MiB, creating no store', async () => {
    await write('small.txt', 'x\n');
    const big = await fs.open(path.join(directory, 'big.bin'), 'w');
    await big.truncate(201 * 1024 * 1024); // sparse: large to stat, nothing on disk
    await big.close();
    const result = await activities.checkpointWorkspace({ agentId: 'a', cwd: directory, turn: 0 });
    expect(result).toEqual({ kind: 'unavailable', reason: expect.stringContaining('more than 200 MiB') });
    expect(result.kind === 'unavailable' && result.reason).toContain('the conversation only');
    await expect(fs.lstat(path.join(home, 'state'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a directory of more than 20,000 files', async () => {
    for (let batch = 0; batch < 21; batch += 1) {
      const folder = path.join(directory, `batch-${batch}`);
      await fs.mkdir(folder);
      await Promise.all(Array.from({ length: 1000 }, (_, index) => fs.writeFile(path.join(folder, `${index}`), '')));
    }
    const result = await activities.checkpointWorkspace({ agentId: 'a', cwd: directory, turn: 0 });
    expect(result).toEqual({ kind: 'unavailable', reason: expect.stringContaining('more than 20,000 files') });
  });

  it('refuses a directory holding its own store', async () => {
    const inside = createCheckpointActivities({
      env: { ...env, SUBAGENTS_HOME: path.join(directory, '.state') },
      homeDir: home,
    });
    const result = await inside.checkpointWorkspace({ agentId: 'a', cwd: directory, turn: 0 });
    expect(result).toEqual({
      kind: 'unavailable',
      reason: expect.stringContaining("contains the worker's checkpoint store"),
    });
  });
});

describe('measureDirectory', () => {
  it('counts files and bytes, skipping node_modules, .git and .subagents, and stops at a limit', async () => {
    await write('a.txt', '12345');
    await write('deep/b.txt', '123');
    await write('node_modules/x/y.js', 'ignored');
    await write('.git/objects/z', 'ignored');
    await write('.subagents/worktrees/w/file', 'ignored');
    expect(await measureDirectory(directory)).toEqual({ files: 2, bytes: 8 });
    expect(await measureDirectory(directory, { maxFiles: 1, maxBytes: 100 })).toMatchObject({ over: 'files' });
    expect(await measureDirectory(directory, { maxFiles: 10, maxBytes: 4 })).toMatchObject({ over: 'bytes' });
  });
});
