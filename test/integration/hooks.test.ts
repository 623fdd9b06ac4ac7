// @slow
/** Hooks and settings permission rules (docs/hooks.md, docs/configuration.md) on a real Temporal server with a scripted model. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { agentsListCommand } from '../../src/cli/commands/agents-list';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { recordHistory } from '../helpers/histories';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentOfType, bash, spawn } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hooks-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

/** A project directory of its own per test, with its files (`.claude/settings.json`, agents, hook scripts). */
const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);

const settings = (value: unknown) => JSON.stringify(value, null, 2);
const hook = (event: string, command: string, matcher?: string) => ({
  [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command }] }],
});

const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);

/** The tool results of the agent's `index`-th request's last message. */
function toolResults(agentId: string, index: number): Array<{ content: string; is_error?: boolean }> {
  const request = requestsOf(agentId)[index]!;
  return request.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>;
}

const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('hooks on a real server', () => {
  it("a PreToolUse hook that exits 2 stops a Bash call: the command never runs and the model sees the hook's stderr", async () => {
    const dir = project('pre-exit-2', {
      '.claude/settings.json': settings({
        hooks: hook(
          'PreToolUse',
          'cat > "$CLAUDE_PROJECT_DIR/pre-input.json"; echo "NO-TOUCHING: use the Write tool" >&2; exit 2',
          'Bash',
        ),
      }),
    });
    env.script(agentNamed('pre-exit-2', [{ toolUses: [bash('touch escaped.txt')] }, { text: 'done' }]));
    const { handle } = await runCompleted(env, { prompt: 'touch it', name: 'pre-exit-2', cwd: dir });
    expect(existsSync(path.join(dir, 'escaped.txt'))).toBe(false);
    const [result] = toolResults(handle.agentId, 1);
    expect(result!.is_error).toBe(true);
    expect(result!.content).toContain('HookBlocked: a PreToolUse hook refused this call; nothing was run.');
    expect(result!.content).toContain('NO-TOUCHING: use the Write tool');
    const input = JSON.parse(readFileSync(path.join(dir, 'pre-input.json'), 'utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'touch escaped.txt' },
      cwd: dir,
      session_id: handle.agentId,
    });
    expect((await handle.status()).permissionDenials).toEqual({ count: 1, byTool: { Bash: 1 } });
    // The hook ran as its own activity, visible in the history.
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const scheduled = history.events!.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runHook',
    );
    expect(scheduled).toHaveLength(1);
  });

  it('a PreToolUse hook may rewrite the call (updatedInput): the rewritten call runs, checked against the rules like the original', async () => {
    const rewrite = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: 'echo REWRITTEN > rewritten.txt' },
      },
    });
    const dir = project('pre-updated-input', {
      '.claude/settings.json': settings({
        permissions: { deny: ['Bash(rm:*)'] },
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: `cat > /dev/null; echo '${rewrite}'` }] },
          ],
        },
      }),
    });
    env.script(
      agentNamed('pre-updated-input', [{ toolUses: [bash('echo ORIGINAL > original.txt')] }, { text: 'done' }]),
    );
    await runCompleted(env, {
      prompt: 'write it',
      name: 'pre-updated-input',
      cwd: dir,
      permissionMode: 'default',
    });
    expect(existsSync(path.join(dir, 'original.txt'))).toBe(false);
    expect(readFileSync(path.join(dir, 'rewritten.txt'), 'utf8').trim()).toBe('REWRITTEN');

    // A rewrite into something a deny rule refuses is refused like the model's own call would be: read on
    // the bash parse too (shell-quote took `x#y; rm ...` for a comment and let it through).
    const sneaky = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'ls x#y; rm -f keep.txt' } },
    });
    const guarded = project('pre-updated-denied', {
      'keep.txt': 'keep\n',
      '.claude/settings.json': settings({
        permissions: { deny: ['Bash(rm:*)'] },
        hooks: hook('PreToolUse', `cat > /dev/null; echo '${sneaky}'`, 'Bash'),
      }),
    });
    env.script(agentNamed('pre-updated-denied', [{ toolUses: [bash('ls')] }, { text: 'done' }]));
    const { handle: refused } = await runCompleted(env, { prompt: 'list', name: 'pre-updated-denied', cwd: guarded });
    expect(existsSync(path.join(guarded, 'keep.txt'))).toBe(true);
    const [result] = toolResults(refused.agentId, 1);
    expect(result!.is_error).toBe(true);
    expect(result!.content).toContain('PermissionRuleDenied');
  });

  it('PreToolUse JSON deny refuses a call, PostToolUse sees tool_response and adds context, and a Stop hook that exits 2 gives the root one more turn', async () => {
    const stopScript = [
      'input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/stop-inputs.jsonl"',
      'case "$input" in *\'"stop_hook_active":false\'*) echo "STOP-FEEDBACK: also write the summary" >&2; exit 2;; esac',
      'exit 0',
    ].join('\n');
    const dir = project('root-hooks', {
      'notes.txt': 'NOTES-CONTENT\n',
      'stop.sh': stopScript,
      '.claude/settings.json': settings({
        hooks: {
          ...hook(
            'PreToolUse',
            `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"JSON-DENY: no writes here"}}'`,
            'Write',
          ),
          ...hook(
            'PostToolUse',
            'cat >> "$CLAUDE_PROJECT_DIR/post-inputs.jsonl"; echo \'{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"POST-CONTEXT: notes are stale"}}\'',
            'Read|Grep',
          ),
          ...hook('Stop', '"$CLAUDE_PROJECT_DIR/stop.sh"'),
        },
      }),
    });
    env.script(
      agentNamed('root-hooks', [
        {
          toolUses: [
            { name: 'Write', input: { file_path: path.join(dir, 'out.txt'), content: 'x' } },
            { name: 'Read', input: { file_path: path.join(dir, 'notes.txt') } },
          ],
        },
        { text: 'first answer' },
        { text: 'second answer, with the summary' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'work', name: 'root-hooks', cwd: dir });
    expect(result.finalText).toBe('second answer, with the summary');
    expect(existsSync(path.join(dir, 'out.txt'))).toBe(false);
    const [write, read] = toolResults(handle.agentId, 1);
    expect(write!.is_error).toBe(true);
    expect(write!.content).toContain('JSON-DENY: no writes here');
    expect(read!.is_error).toBeFalsy();
    expect(read!.content).toContain('NOTES-CONTENT');
    expect(read!.content).toContain('POST-CONTEXT: notes are stale');
    const [post] = jsonLines(path.join(dir, 'post-inputs.jsonl'));
    expect(post).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: path.join(dir, 'notes.txt') },
    });
    expect(String(post!.tool_response)).toContain('NOTES-CONTENT');
    // The Stop hook blocked once (its stderr is the next user message), then let the root finish.
    const requests = requestsOf(handle.agentId);
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[2]!.messages.at(-1))).toContain('STOP-FEEDBACK: also write the summary');
    const stops = jsonLines(path.join(dir, 'stop-inputs.jsonl'));
    expect(stops.map((stop) => [stop.hook_event_name, stop.stop_hook_active, stop.last_assistant_message])).toEqual([
      ['Stop', false, 'first answer'],
      ['Stop', true, 'second answer, with the summary'],
    ]);
    await recordHistory(env.temporal.client, handle.agentId, 'hooks-root-pre-post-stop');
  });

  it("SubagentStart adds context to the child's first message; a SubagentStop hook sees the child's result and keeps it going once", async () => {
    const subagentStop = [
      'input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/subagent-stop.jsonl"',
      'case "$input" in *\'"stop_hook_active":false\'*) echo "CHECK-AGAIN: cite the file" >&2; exit 2;; esac',
    ].join('\n');
    const dir = project('subagent-hooks', {
      'subagent-stop.sh': subagentStop,
      '.claude/settings.json': settings({
        hooks: {
          ...hook(
            'SubagentStart',
            'echo \'{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"START-CONTEXT: the repo uses tabs"}}\'',
            'checker',
          ),
          ...hook('SubagentStop', '"$CLAUDE_PROJECT_DIR/subagent-stop.sh"', 'checker'),
        },
      }),
      // Its own Stop hook runs as SubagentStop.
      '.claude/agents/checker.md':
        '---\nname: checker\ndescription: Checks\ntools: Read\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: cat > "$CLAUDE_PROJECT_DIR/own-stop.json"\n---\nYou check.\n',
    });
    env.script(
      agentNamed('subagent-hooks', [
        {
          toolUses: [spawn('check', 'check it', { subagent_type: 'checker' })],
        },
        { text: 'root done' },
      ]),
      agentOfType('checker', [{ text: 'CHILD-RESULT-1' }, { text: 'CHILD-RESULT-2 (see notes.txt)' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'check', name: 'subagent-hooks', cwd: dir });
    const child = `${handle.agentId}.1`;
    const childRequests = requestsOf(child);
    expect(childRequests).toHaveLength(2);
    expect(JSON.stringify(childRequests[0]!.messages[0])).toContain('START-CONTEXT: the repo uses tabs');
    expect(JSON.stringify(childRequests[1]!.messages.at(-1))).toContain('CHECK-AGAIN: cite the file');
    const stops = jsonLines(path.join(dir, 'subagent-stop.jsonl'));
    expect(
      stops.map((stop) => [
        stop.hook_event_name,
        stop.agent_id,
        stop.agent_type,
        stop.stop_hook_active,
        stop.last_assistant_message,
      ]),
    ).toEqual([
      ['SubagentStop', child, 'checker', false, 'CHILD-RESULT-1'],
      ['SubagentStop', child, 'checker', true, 'CHILD-RESULT-2 (see notes.txt)'],
    ]);
    expect(JSON.parse(readFileSync(path.join(dir, 'own-stop.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'SubagentStop',
      last_assistant_message: 'CHILD-RESULT-2 (see notes.txt)',
    });
    // The parent got the result the hooks finally let through.
    expect(JSON.stringify(requestsOf(handle.agentId)[1]!.messages.at(-1))).toContain('CHILD-RESULT-2 (see notes.txt)');
  });
});

describe('settings permission rules on a real server', () => {
  it('deny refuses, an allow rule runs git diff without approval, and git push (an ask rule, stronger than allow) waits for a person', async () => {
    const dir = project('rules', {
      '.claude/settings.json': settings({
        permissions: { allow: ['Bash(git diff:*)', 'Bash(git:*)'], ask: ['Bash(git push:*)'], deny: ['Bash(rm:*)'] },
      }),
      'keep.txt': 'keep\n',
    });
    execFileSync('git', ['init', '-q'], { cwd: dir });
    env.script(
      agentNamed('rules-root', [
        { toolUses: [bash('git diff --stat'), bash('rm keep.txt'), bash('git push origin main')] },
        { text: 'done' },
      ]),
    );
    // Default mode: without the allow rule, git diff would wait for a person too.
    const handle = await env.start({ prompt: 'work', name: 'rules-root', cwd: dir, permissionMode: 'default' });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, 'the approval request of git push');
    const [request] = await handle.approvals();
    expect(request!.inputSummary).toContain('git push');
    await handle.answerApproval(request!.requestId, { approve: false, reason: 'not today' });
    expect((await handle.result()).status).toBe('completed');
    const [diff, rm, push] = toolResults(handle.agentId, 1);
    expect(diff!.is_error, diff!.content).toBeFalsy();
    expect(rm!.is_error).toBe(true);
    expect(rm!.content).toContain(
      `PermissionRuleDenied: the rule Bash(rm:*) in permissions.deny of ${path.join(dir, '.claude', 'settings.json')} refuses this call`,
    );
    expect(existsSync(path.join(dir, 'keep.txt'))).toBe(true);
    expect(push!.is_error).toBe(true);
    expect(push!.content).toContain('not today');
    expect((await handle.status()).permissionDenials).toEqual({ count: 2, byTool: { Bash: 2 } });
  });

  it('a malformed settings file and a malformed hooks field are clear warnings; the broken file widens nothing and the agent still runs', async () => {
    const dir = project('malformed', {
      '.claude/settings.json': settings({ permissions: { allow: ['Bash'] } }),
      '.claude/settings.local.json': '{ "permissions": { "deny": ["Bash(rm:*)"] ',
      '.claude/agents/sloppy.md':
        '---\nname: sloppy\ndescription: Sloppy hooks\ntools: Read\nhooks:\n  PreToolUse:\n    - matcher: Read\n      hooks:\n        - type: command\n  InstructionsLoaded: []\n---\nYou are sloppy.\n',
    });
    const output: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void output.push(parts.join(' ')));
    try {
      expect(await agentsListCommand(['--dir', dir], { homeDir })).toBe(0);
    } finally {
      spy.mockRestore();
    }
    const printed = output.join('\n');
    expect(printed).toContain(`${path.join(dir, '.claude', 'settings.local.json')}: not valid JSON`);
    expect(printed).toContain('no allow rule of any settings file applies');
    expect(printed).toMatch(
      /sloppy\.md: hooks\.PreToolUse\[0\]\.hooks\[0\]: command: .*; dropped \(the agent loads without it\)/,
    );
    expect(printed).toContain('hooks.InstructionsLoaded: this runtime does not fire InstructionsLoaded');
    // The allow rule of the readable file does not apply while the other is broken: Bash still asks.
    env.script(
      agentNamed('malformed-root', [
        {
          toolUses: [spawn('read', 'read', { subagent_type: 'sloppy' }), bash('echo hi')],
        },
        { text: 'done' },
      ]),
      agentOfType('sloppy', [
        { toolUses: [{ name: 'Read', input: { file_path: path.join(dir, '.claude', 'settings.json') } }] },
        { text: 'read it' },
      ]),
    );
    const handle = await env.start({ prompt: 'work', name: 'malformed-root', cwd: dir, permissionMode: 'default' });
    await waitFor(async () => (await handle.approvals()).length === 1, 30_000, 'the approval request of Bash');
    const [request] = await handle.approvals();
    expect(request!.tool).toBe('Bash');
    await handle.answerApproval(request!.requestId, { approve: true });
    expect((await handle.result()).status).toBe('completed');
    // The subagent loaded without its bad hook and ran its Read.
    const childResults = toolResults(`${handle.agentId}.1`, 1);
    expect(childResults[0]!.is_error).toBeFalsy();
    const childHistory = await env.temporal.client.workflow.getHandle(`${handle.agentId}.1`).fetchHistory();
    expect(
      childHistory.events!.some(
        (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runHook',
      ),
    ).toBe(false);
  });
});
