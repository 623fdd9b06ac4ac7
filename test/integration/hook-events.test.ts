// @slow
/** The lifecycle hook events (docs/hooks.md, "Events") on a real Temporal server with a scripted model. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelCallsOf, writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentPrompted, bash, spawn } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom, type RequestBody } from '../helpers/model-requests';
import { recordHistory } from '../helpers/histories';
import { hookInputsOf } from '../helpers/hook-inputs';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-events-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
const settings = (hooks: Record<string, unknown>) => JSON.stringify({ hooks }, null, 2);
const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
/** The agent's model requests of its turns (no compaction call). */
const turnRequestsOf = (agentId: string): RequestBody[] =>
  modelCallsOf(env.modelServer, agentId)
    .filter((request) => request.headers['x-subagents-purpose'] !== 'compaction')
    .map((request) => JSON.parse(request.rawBody) as RequestBody);

/** A hook group that appends its input to `<event>.jsonl` in the project, then runs `then` (its output and exit). */
const recorder = (event: string, then = 'exit 0', matcher?: string) => [
  {
    ...(matcher ? { matcher } : {}),
    hooks: [{ type: 'command', command: `{ cat; echo; } >> "$CLAUDE_PROJECT_DIR/${event}.jsonl"; ${then}` }],
  },
];

const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;

describe('hook events on a real server', () => {
  it('SessionStart and UserPromptSubmit add to the opening, PostToolUseFailure to a failed call, SessionEnd closes; a resume is a SessionStart', async () => {
    const dir = project('session', {
      '.claude/settings.json': settings({
        SessionStart: recorder(
          'SessionStart',
          json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'SESSION-CONTEXT' } }),
          'startup|resume',
        ),
        UserPromptSubmit: recorder('UserPromptSubmit', 'echo PROMPT-CONTEXT'),
        PostToolUseFailure: recorder(
          'PostToolUseFailure',
          json({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: 'FAILURE-CONTEXT' } }),
          'Read',
        ),
        PostToolUse: recorder('PostToolUse'),
        SessionEnd: recorder('SessionEnd'),
      }),
    });
    env.script(
      agentNamed('session', [
        { toolUses: [{ name: 'Read', input: { file_path: path.join(dir, 'missing.txt') } }] },
        { text: 'done' },
        { text: 'RESUMED' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'THE-PROMPT', name: 'session', cwd: dir });
    await recordHistory(env.temporal.client, handle.agentId, 'hook-events-session');
    const [first, second] = requestsOf(handle.agentId);
    const opening = JSON.stringify(first!.messages[0]);
    expect(opening).toContain('SESSION-CONTEXT');
    // The prompt's context follows the prompt.
    expect(opening.indexOf('THE-PROMPT')).toBeLessThan(opening.indexOf('PROMPT-CONTEXT'));
    const [failed] = second!.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>;
    expect(failed!.is_error).toBe(true);
    expect(failed!.content).toContain('FAILURE-CONTEXT');
    expect(hookInputsOf(dir, 'SessionStart')).toEqual([
      expect.objectContaining({ hook_event_name: 'SessionStart', source: 'startup', session_id: handle.agentId }),
    ]);
    expect(hookInputsOf(dir, 'UserPromptSubmit')).toEqual([
      expect.objectContaining({ hook_event_name: 'UserPromptSubmit', prompt: 'THE-PROMPT' }),
    ]);
    const [failure] = hookInputsOf(dir, 'PostToolUseFailure');
    expect(failure).toMatchObject({ tool_name: 'Read', is_interrupt: false });
    expect(String(failure!.error)).toMatch(/missing\.txt|not exist|No such file/i);
    // PostToolUse is for calls that succeeded: the failed Read does not reach it.
    expect(hookInputsOf(dir, 'PostToolUse')).toEqual([]);
    expect(hookInputsOf(dir, 'SessionEnd')).toEqual([expect.objectContaining({ reason: 'other' })]);

    // Resumed (`subagents send` to a finished root): SessionStart again, with source resume; its context follows the new prompt.
    const { delivered, handle: resumed } = await env.client.send(handle.agentId, 'AGAIN');
    expect(delivered).toBe('resumed');
    expect((await resumed.result()).finalText).toBe('RESUMED');
    expect(hookInputsOf(dir, 'SessionStart').map((input) => input.source)).toEqual(['startup', 'resume']);
    const last = requestsOf(handle.agentId).at(-1)!;
    const tail = JSON.stringify(last.messages.slice(-2));
    expect(tail.indexOf('AGAIN')).toBeLessThan(tail.indexOf('SESSION-CONTEXT'));
    expect(hookInputsOf(dir, 'SessionEnd')).toHaveLength(2);
  });

  it('UserPromptSubmit screens sent messages and steering (a blocked one never reaches the model); SessionEnd says prompt_input_exit', async () => {
    const screen =
      'input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/UserPromptSubmit.jsonl"; case "$input" in *FORBIDDEN*) echo "NO-FORBIDDEN-WORDS" >&2; exit 2;; esac';
    const dir = project('prompts', {
      '.claude/settings.json': settings({
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: screen }] }],
        Notification: recorder('Notification', 'exit 0', 'idle_prompt'),
        SessionEnd: recorder('SessionEnd'),
      }),
    });
    env.script(
      agentNamed('prompts', [{ text: 'FIRST' }, { text: 'SECOND after {{last_user_text}}' }, { text: 'THIRD' }]),
    );
    const handle = await env.start({
      prompt: 'hello',
      name: 'prompts',
      cwd: dir,
      interactive: { idleTimeoutMs: 60_000 },
    });
    const waiting = async () => (await handle.status()).waitingFor === 'the next message';
    await waitFor(waiting, 60_000, 'the first answer');
    await handle.steer('FORBIDDEN steer');
    await env.client.send(handle.agentId, 'ALLOWED-MESSAGE');
    await waitFor(async () => requestsOf(handle.agentId).length >= 2, 60_000, 'the second turn');
    await waitFor(waiting, 60_000, 'the second answer');
    await handle.close();
    const result = await handle.result();
    expect(result.status).toBe('completed');
    const sent = JSON.stringify(requestsOf(handle.agentId).map((request) => request.messages));
    expect(sent).toContain('ALLOWED-MESSAGE');
    expect(sent).not.toContain('FORBIDDEN');
    expect(hookInputsOf(dir, 'UserPromptSubmit').map((input) => input.prompt)).toEqual(
      expect.arrayContaining(['hello', 'FORBIDDEN steer', 'ALLOWED-MESSAGE']),
    );
    expect(hookInputsOf(dir, 'Notification')[0]).toMatchObject({ notification_type: 'idle_prompt' });
    expect(hookInputsOf(dir, 'SessionEnd')).toEqual([expect.objectContaining({ reason: 'prompt_input_exit' })]);
  });

  it('PermissionRequest answers approvals, PermissionDenied hears every denial, Notification hears a person is asked', async () => {
    const decide = [
      'input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/PermissionRequest.jsonl"',
      `case "$input" in *HOOK-ALLOWS*) ${json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } })};;`,
      `*HOOK-DENIES*) ${json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'HOOK-SAID-NO' } } })};; esac`,
    ].join('\n');
    const dir = project('permissions', {
      '.claude/settings.json': settings({
        PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: decide }] }],
        PermissionDenied: recorder(
          'PermissionDenied',
          json({ hookSpecificOutput: { hookEventName: 'PermissionDenied', retry: true } }),
          'Bash',
        ),
        Notification: recorder('Notification', 'exit 0', 'permission_prompt'),
      }),
    });
    env.script(
      agentNamed('permissions', [
        { toolUses: [bash('echo HOOK-ALLOWS > allowed.txt')] },
        { toolUses: [bash('echo HOOK-DENIES > denied.txt')] },
        { toolUses: [bash('echo PERSON-DECIDES > asked.txt')] },
        { text: 'done' },
      ]),
    );
    const handle = await env.start({ prompt: 'work', name: 'permissions', cwd: dir, permissionMode: 'default' });
    await waitFor(async () => (await handle.approvals()).length === 1, 60_000, 'the approval a person is asked');
    const [request] = await handle.approvals();
    expect(request!.inputSummary).toContain('PERSON-DECIDES');
    await waitFor(async () => hookInputsOf(dir, 'Notification').length === 1, 30_000, 'the Notification hook');
    await handle.answerApproval(request!.requestId, { approve: false });
    expect((await handle.result()).status).toBe('completed');
    expect(readFileSync(path.join(dir, 'allowed.txt'), 'utf8').trim()).toBe('HOOK-ALLOWS');
    expect(existsSync(path.join(dir, 'denied.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'asked.txt'))).toBe(false);
    const results = requestsOf(handle.agentId).map((request) => JSON.stringify(request.messages.at(-1)));
    expect(results[2]).toContain('Permission denied by a PermissionRequest hook: HOOK-SAID-NO');
    expect(results[2]).toContain('A PermissionDenied hook says you may retry this call.');
    expect(results[3]).toContain('Permission denied by');
    expect(hookInputsOf(dir, 'PermissionRequest').map((input) => input.tool_name)).toEqual(['Bash', 'Bash', 'Bash']);
    expect(
      hookInputsOf(dir, 'PermissionDenied').map((input) => (input.tool_input as { command: string }).command),
    ).toEqual(['echo HOOK-DENIES > denied.txt', 'echo PERSON-DECIDES > asked.txt']);
    expect(hookInputsOf(dir, 'Notification')).toEqual([
      expect.objectContaining({ notification_type: 'permission_prompt', title: 'Permission needed' }),
    ]);
    await recordHistory(env.temporal.client, handle.agentId, 'hook-events-permissions');
  });

  it('PreCompact may block a compaction; PostCompact gets the summary and SessionStart (compact) adds context after it', async () => {
    const dir = project('compaction', {
      '.claude/settings.json': settings({
        PreCompact: recorder(
          'PreCompact',
          'test -e "$CLAUDE_PROJECT_DIR/block" && { echo NOT-NOW >&2; exit 2; }; exit 0',
        ),
        PostCompact: recorder('PostCompact'),
        SessionStart: recorder(
          'SessionStart',
          json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'AFTER-COMPACT-CONTEXT' } }),
          'compact',
        ),
      }),
      block: '',
    });
    env.script(agentNamed('compaction', [{ text: 'FIRST' }, { text: 'SECOND' }, { text: 'THIRD' }]));
    const handle = await env.start({
      prompt: 'hi',
      name: 'compaction',
      cwd: dir,
      interactive: { idleTimeoutMs: 60_000 },
    });
    const waiting = async () => (await handle.status()).waitingFor === 'the next message';
    await waitFor(waiting, 60_000, 'the first answer');
    await env.client.send(handle.agentId, 'MORE');
    await waitFor(async () => requestsOf(handle.agentId).length >= 2, 60_000, 'the second turn');
    await waitFor(waiting, 60_000, 'the second answer');
    await handle.compact({ instructions: 'KEEP-IT-SHORT' });
    await waitFor(async () => hookInputsOf(dir, 'PreCompact').length === 1, 60_000, 'the blocked PreCompact');
    expect((await handle.status()).context?.compactions.count ?? 0).toBe(0);
    execFileSync('rm', [path.join(dir, 'block')]);
    await handle.compact({ instructions: 'KEEP-IT-SHORT' });
    await waitFor(async () => ((await handle.status()).context?.compactions.count ?? 0) === 1, 60_000, 'a compaction');
    await env.client.send(handle.agentId, 'AFTER');
    await waitFor(async () => turnRequestsOf(handle.agentId).length >= 3, 60_000, 'turn 3');
    await handle.close();
    expect((await handle.result()).status).toBe('completed');
    expect(hookInputsOf(dir, 'PreCompact')).toEqual([
      expect.objectContaining({ trigger: 'manual', custom_instructions: 'KEEP-IT-SHORT' }),
      expect.objectContaining({ trigger: 'manual', custom_instructions: 'KEEP-IT-SHORT' }),
    ]);
    const [post] = hookInputsOf(dir, 'PostCompact');
    expect(post).toMatchObject({ trigger: 'manual' });
    expect(String(post!.compact_summary).length).toBeGreaterThan(0);
    expect(hookInputsOf(dir, 'SessionStart')).toEqual([expect.objectContaining({ source: 'compact' })]);
    const last = turnRequestsOf(handle.agentId).at(-1)!;
    expect(JSON.stringify(last.messages[0])).toContain('AFTER-COMPACT-CONTEXT');
    await recordHistory(env.temporal.client, handle.agentId, 'hook-events-compaction');
  });

  it('TaskCreated and TaskCompleted may refuse a task; a refused prompt fails the agent and StopFailure hears of it', async () => {
    const dir = project('board', {
      '.claude/settings.json': settings({
        TaskCreated: recorder(
          'TaskCreated',
          'tail -n 1 "$CLAUDE_PROJECT_DIR/TaskCreated.jsonl" | grep -q REFUSED-TASK && { echo NO-SUCH-TASKS >&2; exit 2; }; exit 0',
        ),
        TaskCompleted: recorder('TaskCompleted', 'echo "RUN-THE-TESTS-FIRST" >&2; exit 2'),
      }),
    });
    env.script(
      agentNamed('board', [
        { toolUses: [{ name: 'TaskCreate', input: { subject: 'REFUSED-TASK', description: 'd' } }] },
        { toolUses: [{ name: 'TaskCreate', input: { subject: 'kept task', description: 'KEPT-DESCRIPTION' } }] },
        { toolUses: [{ name: 'TaskUpdate', input: { taskId: '2', status: 'completed' } }] },
        { toolUses: [{ name: 'TaskList', input: {} }] },
        { text: 'done' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'plan', name: 'board', cwd: dir });
    const results = requestsOf(handle.agentId).map((request) => JSON.stringify(request.messages.at(-1)));
    expect(results[1]).toContain('HookBlocked: a TaskCreated hook refused it: task #1 was deleted again');
    expect(results[1]).toContain('NO-SUCH-TASKS');
    expect(results[3]).toContain('a TaskCompleted hook refused it: task #2 stays open');
    expect(results[3]).toContain('RUN-THE-TESTS-FIRST');
    // The list: the refused task is gone, the other is still open.
    expect(results[4]).not.toContain('REFUSED-TASK');
    expect(results[4]).toContain('kept task');
    expect(hookInputsOf(dir, 'TaskCompleted')).toEqual([
      expect.objectContaining({ task_id: '2', task_subject: 'kept task', task_description: 'KEPT-DESCRIPTION' }),
    ]);
    await recordHistory(env.temporal.client, handle.agentId, 'hook-events-board');

    const refusing = project('refused-prompt', {
      '.claude/settings.json': settings({
        UserPromptSubmit: recorder('UserPromptSubmit', json({ decision: 'block', reason: 'NOT-THIS-PROMPT' })),
        StopFailure: recorder('StopFailure'),
      }),
    });
    const refused = await env.start({ prompt: 'do it', name: 'refused-prompt', cwd: refusing });
    const failed = await refused.result();
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('a UserPromptSubmit hook blocked the prompt: NOT-THIS-PROMPT');
    expect(requestsOf(refused.agentId)).toEqual([]);
    expect(hookInputsOf(refusing, 'StopFailure')).toEqual([
      expect.objectContaining({ hook_event_name: 'StopFailure', error: 'unknown' }),
    ]);
    expect(String(hookInputsOf(refusing, 'StopFailure')[0]!.error_details)).toContain('NOT-THIS-PROMPT');
  });

  // With a WorktreeCreate hook the hook makes the worktree instead (test/integration/hook-worktree.test.ts).
  it("CwdChanged and WorktreeRemove follow a subagent in its own git worktree; SessionStart is the root's alone", async () => {
    const dir = project('worktree', {
      'README.md': 'base\n',
      '.claude/settings.json': settings({
        WorktreeRemove: recorder('WorktreeRemove'),
        CwdChanged: recorder('CwdChanged'),
        SessionStart: recorder('SessionStart'),
      }),
    });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '-A');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'base');
    env.script(
      agentNamed('worktree-root', [
        {
          toolUses: [spawn('isolated', 'ISOLATED-CHILD', { subagent_type: 'general-purpose', isolation: 'worktree' })],
        },
        { text: 'done' },
      ]),
      agentPrompted('ISOLATED-CHILD', [{ text: 'child done, nothing changed' }]),
    );
    await runCompleted(env, { prompt: 'go', name: 'worktree-root', cwd: dir });
    const [removed] = hookInputsOf(dir, 'WorktreeRemove');
    // Told after git removed it, in the agent's original cwd.
    expect(removed).toMatchObject({ hook_event_name: 'WorktreeRemove', agent_type: 'general-purpose', cwd: dir });
    const worktreePath = String(removed!.worktree_path);
    expect(worktreePath).toContain('.subagents/worktrees/');
    expect(existsSync(worktreePath)).toBe(false);
    expect(hookInputsOf(dir, 'CwdChanged')).toEqual([expect.objectContaining({ old_cwd: dir, new_cwd: worktreePath })]);
    expect(hookInputsOf(dir, 'SessionStart').map((input) => input.agent_id)).toEqual([undefined]);
  });
});
