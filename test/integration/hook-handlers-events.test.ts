// @slow
/** Prompt and agent hooks at the lifecycle events that take them (docs/hooks.md, "Handler types"), on a real Temporal server with a scripted model. */
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentOfType, agentPrompted, bash, spawn } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-handlers-events-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
const settings = (hooks: unknown) => JSON.stringify({ hooks }, null, 2);
const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
/** Tokens the model server served to one agent id (`<agent>/PromptHook` for its prompt hooks). */
const served = (agentId: string): number =>
  (env.modelServer.usage().byAgent as Record<string, { totalTokens: number } | undefined>)[agentId]?.totalTokens ?? 0;
/** An agent hook's answer through its StructuredOutput tool. */
const answer = (value: Record<string, unknown>) => ({ toolUses: [{ name: 'StructuredOutput', input: value }] });

describe('prompt and agent hooks at lifecycle events', () => {
  it("a prompt UserPromptSubmit hook at a budgeted root's start and on its messages is charged to the ledger; ok:false drops a message", async () => {
    const dir = project('prompt-ups', {
      '.claude/settings.json': settings({
        UserPromptSubmit: [{ hooks: [{ type: 'prompt', prompt: 'Is this prompt polite? $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentPrompted('RUDE-MESSAGE', [{ text: '{"ok": false, "reason": "PROMPT-HOOK: be polite"}' }]),
      agentOfType('PromptHook', [{ text: '{"ok": true}' }]),
      agentNamed('prompt-ups', [{ text: 'FIRST' }, { text: 'SECOND' }]),
    );
    const handle = await env.start({
      prompt: 'hello',
      name: 'prompt-ups',
      cwd: dir,
      interactive: { idleTimeoutMs: 60_000 },
      limits: { budget: { caps: { tokens: 200_000 } } },
    });
    const waiting = async () => (await handle.status()).waitingFor === 'the next message';
    await waitFor(waiting, 60_000, 'the first answer');
    await env.client.send(handle.agentId, 'RUDE-MESSAGE');
    await waitFor(async () => requestsOf(`${handle.agentId}/PromptHook`).length >= 2, 60_000, 'the second check');
    await env.client.send(handle.agentId, 'KIND-MESSAGE');
    await waitFor(async () => requestsOf(handle.agentId).length >= 2, 60_000, 'the second turn');
    await waitFor(waiting, 60_000, 'the second answer');
    const snapshot = await handle.budget();
    await handle.close();
    expect((await handle.result()).status).toBe('completed');
    const sent = JSON.stringify(requestsOf(handle.agentId).map((request) => request.messages));
    expect(sent).toContain('KIND-MESSAGE');
    expect(sent).not.toContain('RUDE-MESSAGE');
    expect(requestsOf(`${handle.agentId}/PromptHook`)).toHaveLength(3);
    expect((await handle.status()).hookNotices?.join('\n')).toContain('PROMPT-HOOK: be polite');
    const hookTokens = served(`${handle.agentId}/PromptHook`);
    expect(hookTokens).toBeGreaterThan(0);
    const root = snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId)!;
    expect(root.own.tokens).toBe(served(handle.agentId) + hookTokens);
    expect(root.reservedTokens).toBe(0);
  });

  it("an agent UserPromptSubmit hook checks the root's prompt as an Explore child of the tree; its {ok:false} refuses the prompt", async () => {
    const dir = project('agent-ups', {
      '.claude/settings.json': settings({
        UserPromptSubmit: [{ hooks: [{ type: 'agent', prompt: 'Does the prompt name a file? $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentPrompted('NO-FILE-NAMED', [answer({ ok: false, reason: 'AGENT-HOOK: name a file' })]),
      agentOfType('Explore', [answer({ ok: true })]),
      agentNamed('agent-ups', [{ text: 'read it' }]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'summarise README.md',
      name: 'agent-ups',
      cwd: dir,
      limits: { budget: { caps: { tokens: 300_000 } } },
    });
    const status = await handle.status();
    expect(status.children).toEqual([
      expect.objectContaining({
        agentType: 'Explore',
        description: 'UserPromptSubmit agent hook',
        status: 'completed',
      }),
    ]);
    const checker = status.children[0]!.agentId;
    expect(JSON.stringify(requestsOf(checker)[0]!.messages)).toContain('summarise README.md');
    // The checker is a child of the tree: its calls are in the tree's ledger, under its own account.
    const snapshot = await handle.budget();
    const account = snapshot.accounts.find((entry) => entry.agentId === checker);
    expect(served(checker)).toBeGreaterThan(0);
    expect(account?.own.tokens).toBe(served(checker));

    const refused = await env.start({ prompt: 'NO-FILE-NAMED here', name: 'agent-ups-refused', cwd: dir });
    const failed = await refused.result();
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('a UserPromptSubmit hook blocked the prompt: AGENT-HOOK: name a file');
    expect(requestsOf(refused.agentId)).toEqual([]);
    expect((await refused.status()).children).toEqual([expect.objectContaining({ agentType: 'Explore' })]);
  });

  it('an agent SubagentStop hook runs in the subagent as its own Explore child; {ok:false} keeps the subagent going', async () => {
    const dir = project('agent-subagent-stop', {
      '.claude/settings.json': settings({
        SubagentStop: [{ hooks: [{ type: 'agent', prompt: 'Did the subagent cite a file? $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentPrompted('cited a.txt', [answer({ ok: true })]),
      agentOfType('Explore', [answer({ ok: false, reason: 'AGENT-HOOK: cite a file' })]),
      agentNamed('hooked-worker', [{ text: 'first result' }, { text: 'second result, cited a.txt' }]),
      agentNamed('agent-subagent-stop', [
        { toolUses: [spawn('worker', 'WORKER-TASK', { name: 'hooked-worker' })] },
        { text: 'done' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'delegate', name: 'agent-subagent-stop', cwd: dir });
    const worker = `${handle.agentId}.1`;
    const workerStatus = await env.client.getAgent(worker).status();
    expect(workerStatus.result?.finalText).toBe('second result, cited a.txt');
    expect(workerStatus.children.map((child) => child.agentType)).toEqual(['Explore', 'Explore']);
    expect(JSON.stringify(requestsOf(worker).at(-1)!.messages.at(-1))).toContain('AGENT-HOOK: cite a file');
  });

  it("an agent TaskCreated hook's {ok:false} deletes the task; a prompt TaskCompleted hook's tokens count in the tree's token budget", async () => {
    const dir = project('task-hooks', {
      '.claude/settings.json': settings({
        TaskCreated: [
          { hooks: [{ type: 'agent', prompt: 'Is the task small? $ARGUMENTS', statusMessage: 'Sizing the task' }] },
        ],
        TaskCompleted: [{ hooks: [{ type: 'prompt', prompt: 'Was it tested? $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentPrompted('HUGE-TASK', [answer({ ok: false, reason: 'AGENT-HOOK: split it' })]),
      agentOfType('Explore', [answer({ ok: true })]),
      agentOfType('PromptHook', [{ text: '{"ok": false, "reason": "PROMPT-HOOK: run the tests first"}' }]),
      agentNamed('task-hooks', [
        { toolUses: [{ name: 'TaskCreate', input: { subject: 'HUGE-TASK', description: 'everything' } }] },
        { toolUses: [{ name: 'TaskCreate', input: { subject: 'small task', description: 'one thing' } }] },
        { toolUses: [{ name: 'TaskUpdate', input: { taskId: '2', status: 'completed' } }] },
        { text: 'done' },
      ]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'plan',
      name: 'task-hooks',
      cwd: dir,
      limits: { treeTokenBudget: 1_000_000 },
    });
    const results = requestsOf(handle.agentId).map((request) => JSON.stringify(request.messages.at(-1)));
    expect(results[1]).toContain('a TaskCreated hook refused it: task #1 was deleted again');
    expect(results[1]).toContain('AGENT-HOOK: split it');
    expect(results[2]).not.toContain('HookBlocked');
    expect(results[3]).toContain('a TaskCompleted hook refused it: task #2 stays open');
    expect(results[3]).toContain('PROMPT-HOOK: run the tests first');
    const status = await handle.status();
    expect(status.children.map((child) => [child.agentType, child.description, child.status])).toEqual([
      ['Explore', 'Sizing the task', 'completed'],
      ['Explore', 'Sizing the task', 'completed'],
    ]);
    // The tree's count holds the root's calls, its hook children's and its prompt hook's.
    const total = (usage: typeof status.treeUsage) =>
      usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
    const hookTokens = served(`${handle.agentId}/PromptHook`);
    expect(hookTokens).toBeGreaterThan(0);
    const children = status.children.reduce((sum, child) => sum + served(child.agentId), 0);
    expect(total(status.treeUsage)).toBe(served(handle.agentId) + children + hookTokens);
  });

  it("a prompt PermissionRequest hook's ok:false denies the call as exit 2 does, and its call is charged to the ledger", async () => {
    const dir = project('prompt-permission', {
      '.claude/settings.json': settings({
        PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'May it write files? $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentOfType('PromptHook', [{ text: '{"ok": false, "reason": "PROMPT-HOOK: no writes here"}' }]),
      agentNamed('prompt-permission', [{ toolUses: [bash('echo no > denied.txt')] }, { text: 'done' }]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'write',
      name: 'prompt-permission',
      cwd: dir,
      permissionMode: 'default',
      limits: { budget: { caps: { tokens: 200_000 } } },
    });
    expect(existsSync(path.join(dir, 'denied.txt'))).toBe(false);
    expect(JSON.stringify(requestsOf(handle.agentId)[1]!.messages.at(-1))).toContain(
      'Permission denied by a PermissionRequest hook: PROMPT-HOOK: no writes here',
    );
    expect(await handle.approvals()).toEqual([]);
    const snapshot = await handle.budget();
    const root = snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId)!;
    expect(served(`${handle.agentId}/PromptHook`)).toBeGreaterThan(0);
    expect(root.own.tokens).toBe(served(handle.agentId) + served(`${handle.agentId}/PromptHook`));
  });

  it('an agent hook at SessionEnd is refused where hooks are given: the agent has ended and starts no child there', async () => {
    const hooks = { SessionEnd: [{ hooks: [{ type: 'agent', prompt: 'Did the session go well? $ARGUMENTS' }] }] };
    await expect(env.start({ prompt: 'go', name: 'session-end-agent', hooks })).rejects.toThrow(
      /SessionEnd takes "command" and "http" hooks, as in Claude Code, not "agent"; dropped/,
    );
    const dir = project('session-end-agent', { '.claude/settings.json': settings(hooks) });
    env.script(agentNamed('session-end-agent', [{ text: 'done' }]));
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'session-end-agent', cwd: dir });
    expect((await handle.status()).children).toEqual([]);
  });
});
