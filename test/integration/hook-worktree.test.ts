// @slow
/** WorktreeCreate / WorktreeRemove hooks replace git's worktree (docs/worktrees.md, "Worktrees made by hooks"), on a real server. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentTestEnv, writeProject } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { agentNamed, agentPrompted, spawn } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';
import { recordHistory } from '../helpers/histories';
import { worktreeSlug } from '../../src/shared/workspace/worktree';
import { hookInputsOf } from '../helpers/hook-inputs';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-worktree-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

/** A git repository with `.claude/settings.json` of these hooks; hooks may write to `outside` (the sandbox's allowWrite). */
function repository(name: string, outside: string, hooks: Record<string, unknown>): string {
  const dir = writeProject(env.workspace, name, {
    'README.md': 'base\n',
    '.claude/settings.json': JSON.stringify({ hooks, sandbox: { filesystem: { allowWrite: [outside] } } }, null, 2),
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '-A');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'base');
  return dir;
}

const command = (line: string) => [{ hooks: [{ type: 'command', command: line }] }];
/** Appends the hook's input to `<event>.jsonl` in `place` (default the project); `$input` holds it for the rest of the line. */
const recording = (event: string, then: string, place = '$CLAUDE_PROJECT_DIR') =>
  command(`input=$(cat); printf '%s\\n' "$input" >> "${place}/${event}.jsonl"; ${then}`);

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
/** Nothing git-made: the main checkout alone, no subagent branch, nothing untracked but the hooks' records. */
function expectNoGitWorktree(dir: string): void {
  expect(git(dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  expect(git(dir, 'branch', '--list', 'subagents/*').trim()).toBe('');
  expect(existsSync(path.join(dir, '.subagents'))).toBe(false);
}

/** The text of the root's Agent tool result (its second model request's last message). */
function agentToolResult(rootId: string): string {
  const [, second] = requestsFrom(env.modelServer, rootId);
  const blocks = second!.messages.at(-1)!.content as Array<{ type: string; content?: unknown }>;
  const result = blocks.find((block) => block.type === 'tool_result');
  return typeof result?.content === 'string' ? result.content : JSON.stringify(result?.content);
}

describe('WorktreeCreate and WorktreeRemove hooks replace git worktrees', () => {
  it("a hook's plain directory outside the repository is the child's worktree; WorktreeRemove removes it at the end", async () => {
    const outside = path.join(env.workspace, 'hook-trees');
    mkdirSync(outside, { recursive: true });
    const tree = path.join(outside, 'child-tree');
    const dir = repository('made', outside, {
      WorktreeCreate: recording('WorktreeCreate', `mkdir -p '${tree}' && echo 'made by a hook' >&2 && echo '${tree}'`),
      // Reads what the child wrote (so the test sees it landed there), then removes the directory it was handed.
      WorktreeRemove: recording(
        'WorktreeRemove',
        `p=$(printf '%s' "$input" | sed -n 's/.*"worktree_path":"\\([^"]*\\)".*/\\1/p'); ` +
          `cat "$p/made.txt" > "$CLAUDE_PROJECT_DIR/seen-at-removal.txt"; rm -rf "$p"`,
      ),
      // It runs in the new cwd, outside the project, so its sandbox lets it write there and in allowWrite only.
      CwdChanged: recording('CwdChanged', 'exit 0', outside),
    });
    env.script(
      agentNamed('hook-tree-root', [
        {
          toolUses: [spawn('isolated', 'HOOK-TREE-CHILD', { subagent_type: 'general-purpose', isolation: 'worktree' })],
        },
        { text: 'root done' },
      ]),
      agentPrompted('HOOK-TREE-CHILD', [
        {
          toolUses: [
            { name: 'Write', input: { file_path: path.join(tree, 'made.txt'), content: 'CHILD-WROTE-THIS\n' } },
            // Its confinement root is the hook's directory: the repository is outside it now.
            { name: 'Write', input: { file_path: path.join(dir, 'escaped.txt'), content: 'nope\n' } },
            { name: 'Bash', input: { command: 'pwd' } },
          ],
        },
        { text: 'child done: {{last_tool_result}}' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'hook-tree-root', cwd: dir });

    const [created] = hookInputsOf(dir, 'WorktreeCreate');
    const childId = String(created!.agent_id);
    await recordHistory(env.temporal.client, childId, 'hook-worktree-child');
    expect(created).toMatchObject({ hook_event_name: 'WorktreeCreate', name: worktreeSlug(childId), cwd: dir });
    expect(created).not.toHaveProperty('worktree_path');
    expect(hookInputsOf(outside, 'CwdChanged')).toEqual([expect.objectContaining({ old_cwd: dir, new_cwd: tree })]);
    // WorktreeRemove ran in the original cwd, was handed the directory, and removed it.
    expect(hookInputsOf(dir, 'WorktreeRemove')).toEqual([expect.objectContaining({ worktree_path: tree, cwd: dir })]);
    expect(readFileSync(path.join(dir, 'seen-at-removal.txt'), 'utf8')).toBe('CHILD-WROTE-THIS\n');
    expect(existsSync(tree)).toBe(false);
    // Nothing the child did reached the repository, and git made no worktree.
    expect(existsSync(path.join(dir, 'escaped.txt'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(
      ['.claude', '.git', 'README.md', 'WorktreeCreate.jsonl', 'WorktreeRemove.jsonl', 'seen-at-removal.txt'].sort(),
    );
    expectNoGitWorktree(dir);
    // The child worked there: Bash's cwd was the hook's directory.
    const childAnswer = agentToolResult(handle.agentId);
    expect(childAnswer).toContain(`child done: ${tree}`);
    expect(childAnswer).not.toContain('Worktree kept');
    // Its checkpoints were taken in the hook's directory (not a git repository: the worker's private store).
    const turns = await env.client.getAgent(childId).turns();
    expect(turns.checkpointsUnavailable).toBeUndefined();
    expect(turns.boundaries.map((boundary) => boundary.checkpoint?.root)).toContain(tree);
    const result = await env.client.getAgent(childId).result();
    expect(result.worktree).toEqual({
      kept: false,
      path: tree,
      branch: '',
      changedFiles: [],
      commits: [],
      madeBy: 'hook',
    });
  });

  it('without a WorktreeRemove hook the directory is kept, and the parent is told where', async () => {
    const outside = path.join(env.workspace, 'kept-trees');
    mkdirSync(outside, { recursive: true });
    const tree = path.join(outside, 'kept');
    const dir = repository('kept', outside, {
      WorktreeCreate: command(`mkdir -p '${tree}' && echo '${tree}'`),
    });
    env.script(
      agentNamed('kept-root', [
        { toolUses: [spawn('isolated', 'KEPT-CHILD', { subagent_type: 'general-purpose', isolation: 'worktree' })] },
        { text: 'root done' },
      ]),
      agentPrompted('KEPT-CHILD', [
        { toolUses: [{ name: 'Write', input: { file_path: path.join(tree, 'work.txt'), content: 'kept work\n' } }] },
        { text: 'kept child done' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'kept-root', cwd: dir });
    expect(readFileSync(path.join(tree, 'work.txt'), 'utf8')).toBe('kept work\n');
    expect(agentToolResult(handle.agentId)).toContain(
      `Worktree kept: ${tree} (made by a WorktreeCreate hook; no WorktreeRemove hook removed it, and it may hold changes)`,
    );
    expectNoGitWorktree(dir);
  });

  it('a failing WorktreeCreate hook fails the Agent call with an error naming the hook and the fix; no git fallback', async () => {
    const outside = path.join(env.workspace, 'failing-trees');
    mkdirSync(outside, { recursive: true });
    const hook = "echo 'no VCS checkout here' >&2; exit 1";
    const dir = repository('failing', outside, {
      WorktreeCreate: command(hook),
      WorktreeRemove: recording('WorktreeRemove', 'exit 0'),
    });
    env.script(
      agentNamed('failing-root', [
        { toolUses: [spawn('isolated', 'NEVER-RUNS', { subagent_type: 'general-purpose', isolation: 'worktree' })] },
        { text: 'root done' },
      ]),
      agentPrompted('NEVER-RUNS', [{ text: 'should not happen' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'failing-root', cwd: dir });
    const text = agentToolResult(handle.agentId);
    expect(text).toMatch(
      /WorktreeCreateFailed: agent \S+ got no worktree, so it did not run: the WorktreeCreate hook failed/,
    );
    expect(text).toContain(`${hook}: the hook failed with exit code 1: no VCS checkout here`);
    expect(text).toContain('Fix the hook, or remove it to let the runtime make a git worktree');
    expect(text).not.toContain('should not happen');
    // Nothing was made, so nothing is handed to WorktreeRemove; git made nothing either.
    expect(hookInputsOf(dir, 'WorktreeRemove')).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
    expectNoGitWorktree(dir);
  });
});
