import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { guardWorkspaceActivities, pathOutsideRoot, resolveWorkspaceRoot } from '../../src/activities/workspace-guard';
import { workspaceActivityNames } from '../../src/shared/workspace/workspace-routing';

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-guard-')));
const root = path.join(base, 'worker-1');
const elsewhere = path.join(base, 'worker-2');
mkdirSync(path.join(root, 'repo'), { recursive: true });
mkdirSync(elsewhere, { recursive: true });
symlinkSync(elsewhere, path.join(root, 'escape'));
writeFileSync(path.join(base, 'a-file'), 'x');

const toolInput = (cwd: string) => ({ context: { agentId: 'a', workspaceRoot: cwd, cwd }, toolUseId: 't', input: {} });

function fakeActivities() {
  const calls: string[] = [];
  const record = (name: string) => async (input: unknown) => {
    calls.push(name);
    return { content: `${name} ran`, isError: false, input };
  };
  return {
    calls,
    activities: Object.fromEntries([...workspaceActivityNames, 'callModel'].map((name) => [name, record(name)])),
  };
}

describe("a worker's workspace root", () => {
  it('must be an existing absolute directory', () => {
    expect(resolveWorkspaceRoot(root)).toBe(root);
    expect(() => resolveWorkspaceRoot('relative/dir')).toThrow(/must be an absolute path/);
    expect(() => resolveWorkspaceRoot(path.join(base, 'missing'))).toThrow(/does not exist: create it/);
    expect(() => resolveWorkspaceRoot(path.join(base, 'a-file'))).toThrow(/is not a directory/);
  });

  it('finds the paths of every workspace activity, symlinks resolved', () => {
    expect(pathOutsideRoot(root, 'Read', toolInput(path.join(root, 'repo')))).toBeUndefined();
    expect(pathOutsideRoot(root, 'Bash', toolInput(elsewhere))).toBe(elsewhere);
    expect(pathOutsideRoot(root, 'Edit', toolInput(path.join(root, 'escape')))).toBe(path.join(root, 'escape'));
    expect(pathOutsideRoot(root, 'Glob', toolInput(path.join(root, 'repo', '..', '..', 'worker-2')))).toBeDefined();
    expect(pathOutsideRoot(root, 'createWorktree', { agentId: 'a', cwd: elsewhere })).toBe(elsewhere);
    expect(pathOutsideRoot(root, 'renderSystemPrompt', { cwd: path.join(root, 'repo') })).toBeUndefined();
    expect(pathOutsideRoot(root, 'loadSpawnContext', { cwd: '/etc' })).toBe('/etc');
    expect(pathOutsideRoot(root, 'finishWorktree', { worktree: { path: elsewhere } })).toBe(elsewhere);
  });

  it('lets calls inside it through and answers tool calls outside it with an error the model reads', async () => {
    const { calls, activities } = fakeActivities();
    const guarded = guardWorkspaceActivities(activities, root, 'worker-1', workspaceActivityNames);
    await expect(guarded.Read!(toolInput(path.join(root, 'repo')) as never)).resolves.toMatchObject({
      content: 'Read ran',
    });
    const refused = (await guarded.Write!(toolInput(elsewhere) as never)) as { content: string; isError: boolean };
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(
      new RegExp(
        `^WorkspaceNotOnThisWorker: ${elsewhere} is not under ${root}, the workspace root of worker worker-1.*--worker ID`,
      ),
    );
    expect(calls).toEqual(['Read']);
  });

  it('fails other workspace activities outside it without retries, and leaves the rest alone', async () => {
    const { calls, activities } = fakeActivities();
    const guarded = guardWorkspaceActivities(activities, root, 'worker-1', workspaceActivityNames);
    const failure = await guarded.renderSystemPrompt!({ cwd: elsewhere } as never).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).nonRetryable).toBe(true);
    expect((failure as ApplicationFailure).type).toBe('WorkspaceNotOnThisWorker');
    await guarded.callModel!({ cwd: elsewhere } as never);
    expect(calls).toEqual(['callModel']);
  });

  it.each([[null], [undefined], [42], [{}], [{ context: null }], [{ context: { cwd: 7 } }]])(
    'passes malformed input %j to the activity, which reports it',
    async (input) => {
      const { calls, activities } = fakeActivities();
      const guarded = guardWorkspaceActivities(activities, root, 'worker-1', workspaceActivityNames);
      await guarded.Read!(input as never);
      expect(calls).toEqual(['Read']);
    },
  );
});
