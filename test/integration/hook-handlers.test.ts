// @slow
/** The hook handler types (http, prompt, agent) and options (async, once, statusMessage) on a real Temporal server with a scripted model. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrivateAllowance } from '../../src/shared/policy/address-policy';
import { modelCallsOf, writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { agentNamed, agentOfType, agentPrompted, bash } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';
import { recordHistory } from '../helpers/histories';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-handlers-home-')));
// The hook server is on loopback: the worker allows it as an operator would (SUBAGENTS_WEB_FETCH_ALLOW_PRIVATE).
const env = useAgentTestEnv(
  { kind: 'echo' },
  { homeDir, web: { allowPrivateAddresses: parsePrivateAllowance('127.0.0.1') } },
);

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
const settings = (hooks: unknown) => JSON.stringify({ hooks }, null, 2);
const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
const toolResults = (agentId: string, index: number) =>
  requestsOf(agentId)[index]!.messages.at(-1)!.content as Array<{ content: string; is_error?: boolean }>;

let server: Server;
let hookUrl: string;
const posted: Array<{ path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      posted.push({
        path: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(body) as Record<string, unknown>,
      });
      const input = JSON.parse(body) as { tool_input?: { command?: string } };
      if (request.url === '/down') return void response.writeHead(503).end('maintenance');
      if (input.tool_input?.command?.includes('forbidden'))
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: 'HTTP-DENY: the policy service says no',
            },
          }),
        );
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('hook handler types on a real server', () => {
  it('an http PreToolUse hook gets the event as a POST with its allowed env var, and its deny refuses the call; a 503 hook is a notice', async () => {
    process.env.HOOK_HANDLERS_TOKEN = 'token-42';
    process.env.HOOK_HANDLERS_SECRET = 'never-sent';
    const dir = project('http-deny', {
      '.claude/settings.json': settings({
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'http',
                url: `${hookUrl}/pre`,
                headers: { Authorization: 'Bearer $HOOK_HANDLERS_TOKEN', 'X-Leak': '${HOOK_HANDLERS_SECRET}' },
                allowedEnvVars: ['HOOK_HANDLERS_TOKEN'],
              },
              { type: 'http', url: `${hookUrl}/down` },
            ],
          },
        ],
      }),
    });
    env.script(agentNamed('http-deny', [{ toolUses: [bash('touch forbidden.txt')] }, { text: 'done' }]));
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'http-deny', cwd: dir });
    expect(existsSync(path.join(dir, 'forbidden.txt'))).toBe(false);
    const [result] = toolResults(handle.agentId, 1);
    expect(result!.is_error).toBe(true);
    expect(result!.content).toContain('HTTP-DENY: the policy service says no');
    const pre = posted.find((entry) => entry.path === '/pre')!;
    expect(pre.body).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', session_id: handle.agentId });
    expect(pre.headers.authorization).toBe('Bearer token-42');
    expect(pre.headers['x-leak']).toBe('');
    const status = await handle.status();
    expect(status.hookNotices?.join('\n')).toContain('HTTP 503');
    await recordHistory(env.temporal.client, handle.agentId, 'hook-handlers-http');
  });

  it('a prompt Stop hook asks the small model with the event in $ARGUMENTS; ok:false keeps the agent going with its reason', async () => {
    const dir = project('prompt-stop', {
      '.claude/settings.json': settings({
        Stop: [{ hooks: [{ type: 'prompt', prompt: 'Did it cite a file? Event: $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentNamed('prompt-stop', [{ text: 'first answer' }, { text: 'second answer, citing a.txt' }]),
      // Each hook call is a one-message conversation: the answer is chosen by what the call carries.
      agentPrompted('second answer, citing', [{ text: '{"ok": true}' }]),
      agentOfType('PromptHook', [{ text: '{"ok": false, "reason": "PROMPT-REASON: cite the file you used"}' }]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'answer', name: 'prompt-stop', cwd: dir });
    expect(result.finalText).toBe('second answer, citing a.txt');
    const asked = requestsFrom(env.modelServer, `${handle.agentId}/PromptHook`);
    expect(asked).toHaveLength(2);
    expect(JSON.stringify(asked[0]!.messages)).toContain('Did it cite a file? Event: {');
    expect(JSON.stringify(asked[0]!.messages)).toContain('first answer');
    const own = requestsOf(handle.agentId);
    expect(JSON.stringify(own[1]!.messages.at(-1))).toContain('PROMPT-REASON: cite the file you used');
    // The hook's model calls count in the agent's usage.
    const output = (agentId: string) =>
      modelCallsOf(env.modelServer, agentId).reduce((sum, request) => sum + (request.usage?.output_tokens ?? 0), 0);
    expect(output(`${handle.agentId}/PromptHook`)).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBe(output(handle.agentId) + output(`${handle.agentId}/PromptHook`));
    await recordHistory(env.temporal.client, handle.agentId, 'hook-handlers-prompt-stop');
  });

  it("in a budgeted tree a prompt hook's call is reserved and charged: the ledger counts what was served", async () => {
    const dir = project('prompt-budget', {
      '.claude/settings.json': settings({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Safe? $ARGUMENTS' }] }],
      }),
    });
    env.script(
      agentOfType('PromptHook', [{ text: '{"ok": true}' }]),
      agentNamed('prompt-budget', [{ toolUses: [bash('echo fine > ok.txt')] }, { text: 'done' }]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'go',
      name: 'prompt-budget',
      cwd: dir,
      limits: { budget: { caps: { tokens: 200_000 } } },
    });
    expect(readFileSync(path.join(dir, 'ok.txt'), 'utf8').trim()).toBe('fine');
    const served = env.modelServer.usage().byAgent as Record<string, { totalTokens: number }>;
    const hookTokens = served[`${handle.agentId}/PromptHook`]!.totalTokens;
    expect(hookTokens).toBeGreaterThan(0);
    const snapshot = await handle.budget();
    const root = snapshot.accounts.find((account) => account.agentId === snapshot.rootAgentId)!;
    expect(root.own.tokens).toBe(served[handle.agentId]!.totalTokens + hookTokens);
    expect(root.reservedTokens).toBe(0);
    expect(snapshot.overspendTokens).toBe(0);
  });

  it('an agent PreToolUse hook runs a read-only child of the tree whose {ok:false} refuses the call; the child runs no hooks itself', async () => {
    const dir = project('agent-hook', {
      '.claude/settings.json': settings({
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'agent', prompt: 'Is this command safe? $ARGUMENTS', statusMessage: 'Checking the command' },
            ],
          },
        ],
      }),
    });
    env.script(
      agentNamed('agent-hook', [{ toolUses: [bash('touch made-by-bash.txt')] }, { text: 'done' }]),
      agentOfType('Explore', [
        // A Bash call the tree's PreToolUse agent hook would check, were hooks run in a hook's own agent.
        { toolUses: [bash('ls')] },
        { toolUses: [{ name: 'StructuredOutput', input: { ok: false, reason: 'AGENT-REASON: no new files' } }] },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'agent-hook', cwd: dir });
    expect(existsSync(path.join(dir, 'made-by-bash.txt'))).toBe(false);
    const [result] = toolResults(handle.agentId, 1);
    expect(result!.is_error).toBe(true);
    expect(result!.content).toContain('AGENT-REASON: no new files');
    const status = await handle.status();
    const child = status.children.find((entry) => entry.agentType === 'Explore');
    expect(child).toMatchObject({ description: 'Checking the command', status: 'completed' });
    // The child's own Bash call ran without the tree's PreToolUse hooks: no other agent ever called the model.
    expect(status.children).toHaveLength(1);
    const callers = new Set(
      env.modelServer
        .requests()
        .filter(
          (request) =>
            request.path === '/v1/messages' && request.headers['x-subagents-agent-id']?.startsWith(handle.agentId),
        )
        .map((request) => request.headers['x-subagents-agent-id']),
    );
    expect([...callers].sort()).toEqual([handle.agentId, child!.agentId].sort());
    const childRequests = requestsOf(child!.agentId);
    expect(JSON.stringify(childRequests[1]!.messages.at(-1))).not.toContain('HookBlocked');
    await recordHistory(env.temporal.client, handle.agentId, 'hook-handlers-agent');
    expect(JSON.stringify(childRequests[0]!.messages)).toContain('Is this command safe? {');
  });

  it('an agent hook past its timeout is stopped with its child; the event goes on (a non-blocking error)', async () => {
    const dir = project('agent-hook-timeout', {
      '.claude/settings.json': settings({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'agent', prompt: 'Slow check. $ARGUMENTS', timeout: 2 }] }],
      }),
    });
    env.script(
      agentNamed('agent-hook-timeout', [{ toolUses: [bash('echo ran > ran.txt')] }, { text: 'done' }]),
      agentOfType('Explore', [{ text: 'still looking', delayMs: 30_000 }]),
    );
    const started = Date.now();
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'agent-hook-timeout', cwd: dir });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(readFileSync(path.join(dir, 'ran.txt'), 'utf8').trim()).toBe('ran');
    const status = await handle.status();
    expect(status.hookNotices?.join('\n')).toMatch(/did not answer within 2 s and was stopped/);
    expect(status.children).toHaveLength(1);
    expect(status.children[0]!.status).not.toBe('running');
  });

  it('an async PostToolUse hook does not hold the turn, finishes after it, and its context reaches the agent on its next turn', async () => {
    const script = [
      'cat > /dev/null; sleep 3',
      'echo finished > "$CLAUDE_PROJECT_DIR/async-done.txt"',
      `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ASYNC-CONTEXT: tests passed"}}'`,
    ].join('\n');
    const dir = project('async-post', {
      'async.sh': script,
      '.claude/settings.json': settings({
        PostToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR/async.sh"', async: true }] },
        ],
      }),
    });
    env.script(agentNamed('async-post', [{ toolUses: [bash('echo hi')] }, { text: 'turn done' }, { text: 'noted' }]));
    const started = Date.now();
    const { handle, result } = await runCompleted(env, { prompt: 'go', name: 'async-post', cwd: dir });
    expect(readFileSync(path.join(dir, 'async-done.txt'), 'utf8').trim()).toBe('finished');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    const requests = requestsOf(handle.agentId);
    // The tool result came back without waiting for the hook; its turn ended before the hook did.
    expect(JSON.stringify(requests[1]!.messages)).not.toContain('ASYNC-CONTEXT');
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[2]!.messages.at(-1))).toContain('ASYNC-CONTEXT: tests passed');
    expect(result.finalText).toBe('noted');
    await recordHistory(env.temporal.client, handle.agentId, 'hook-handlers-async');
  });

  it('a once hook runs at its first matching event only, under its statusMessage', async () => {
    const dir = project('once', {
      '.claude/settings.json': settings({
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: 'cat > /dev/null; echo ran >> "$CLAUDE_PROJECT_DIR/once.log"',
                once: true,
                statusMessage: 'Setting up the sandbox once',
              },
            ],
          },
        ],
      }),
    });
    env.script(
      agentNamed('once', [{ toolUses: [bash('echo one')] }, { toolUses: [bash('echo two')] }, { text: 'done' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'go', name: 'once', cwd: dir });
    expect(readFileSync(path.join(dir, 'once.log'), 'utf8')).toBe('ran\n');
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const hookRuns = history.events!.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runHook',
    );
    expect(hookRuns).toHaveLength(1);
    // Its statusMessage is the activity's summary (the Temporal UI and `watch` show it).
    const summary = hookRuns[0]!.userMetadata?.summary?.data;
    expect(summary && JSON.parse(Buffer.from(summary).toString())).toBe('Setting up the sandbox once');
  });
});
