// @slow
/** The last hook outputs and moments (docs/hooks.md): a resume's prompt screened, PermissionRequest's updatedPermissions and interrupt, a budget question's Notification, a plugin's agent as a root type. */
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { subagentsPlugin } from '../../src/worker/plugin';
import { modelCallsOf, writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentPrompted, bash, spawn } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';
import { recordHistory } from '../helpers/histories';
import { uniqueTaskQueue } from '../helpers/temporal';
import { hookInputsOf } from '../helpers/hook-inputs';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hook-permissions-more-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
const settings = (hooks: Record<string, unknown>) => JSON.stringify({ hooks }, null, 2);
const requestsOf = (agentId: string) => requestsFrom(env.modelServer, agentId);
const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;

const commandsOf = (dir: string) =>
  hookInputsOf(dir, 'PermissionRequest').map(
    (input) => (input.tool_input as { command?: string }).command ?? input.tool_name,
  );

/** A project whose PermissionRequest hook (a script: short notices) records its input, then answers by the first pattern it matches. */
const permissionProject = (name: string, cases: Array<[pattern: string, decision: Record<string, unknown>]>) =>
  project(name, {
    '.claude/settings.json': settings({
      PermissionRequest: [{ hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR/permission-hook.sh"' }] }],
    }),
    'permission-hook.sh': [
      '#!/bin/sh',
      'input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/PermissionRequest.jsonl"',
      'case "$input" in',
      ...cases.map(
        ([pattern, decision]) =>
          `*${pattern}*) ${json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } })};;`,
      ),
      `*) ${json({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'NOT-LISTED' } } })};;`,
      'esac',
      '',
    ].join('\n'),
  });

describe('the last hook outputs and moments', () => {
  it('a resumed root’s prompt passes UserPromptSubmit: a block drops it and fails the run, context follows it', async () => {
    const screen = [
      'input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/UserPromptSubmit.jsonl"',
      'case "$input" in *BLOCK-ME*) echo "NOT-THIS-PROMPT" >&2; exit 2;;',
      `*AGAIN*) ${json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'RESUME-CONTEXT' } })};; esac`,
    ].join('\n');
    const dir = project('resume', {
      '.claude/settings.json': settings({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: screen }] }] }),
    });
    env.script(agentNamed('resumed', [{ text: 'FIRST' }, { text: 'SECOND' }]));
    const handle = await env.start({ prompt: 'first prompt', name: 'resumed', cwd: dir });
    expect((await handle.result()).finalText).toBe('FIRST');
    const blocked = await env.client.resume(handle.agentId, 'BLOCK-ME please', { homeDir });
    const refused = await blocked.result();
    expect(refused.status).toBe('failed');
    expect(refused.error).toContain('a UserPromptSubmit hook blocked the resumed prompt: NOT-THIS-PROMPT');
    expect(requestsOf(handle.agentId)).toHaveLength(1);
    const again = await env.client.resume(handle.agentId, 'AGAIN now', { homeDir });
    expect((await again.result()).finalText).toBe('SECOND');
    const last = JSON.stringify(requestsOf(handle.agentId).at(-1)!.messages);
    expect(last).not.toContain('BLOCK-ME');
    expect(last.indexOf('AGAIN now')).toBeLessThan(last.indexOf('RESUME-CONTEXT'));
    expect(hookInputsOf(dir, 'UserPromptSubmit').map((input) => input.prompt)).toEqual([
      'first prompt',
      'BLOCK-ME please',
      'AGAIN now',
    ]);
    await recordHistory(env.temporal.client, handle.agentId, 'hook-resume-prompt');
  }, 180_000);

  it('PermissionRequest addRules (session) lets the same call run unasked; interrupt with deny stops the agent', async () => {
    const dir = permissionProject('grant', [
      [
        'SESSION-RULE',
        {
          behavior: 'allow',
          updatedPermissions: [
            {
              type: 'addRules',
              rules: [{ toolName: 'Bash', ruleContent: 'echo SESSION-RULE' }],
              behavior: 'allow',
              destination: 'session',
            },
            { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'projectSettings' },
          ],
        },
      ],
      ['INTERRUPT', { behavior: 'deny', message: 'STOP-NOW', interrupt: true }],
    ]);
    env.script(
      agentNamed('grant', [
        { toolUses: [bash('echo SESSION-RULE')] },
        { toolUses: [bash('echo SESSION-RULE')] },
        { toolUses: [bash('echo INTERRUPT')] },
        { text: 'NEVER-REACHED' },
      ]),
    );
    const handle = await env.start({ prompt: 'work', name: 'grant', cwd: dir, permissionMode: 'default' });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe(
      'Stopped by a hook: a PermissionRequest hook interrupted the agent at Bash: STOP-NOW',
    );
    // The second identical call ran on the session rule: no hook, no person.
    expect(commandsOf(dir)).toEqual(['echo SESSION-RULE', 'echo INTERRUPT']);
    const requests = requestsOf(handle.agentId);
    expect(requests).toHaveLength(3);
    expect(JSON.stringify(requests[2]!.messages.at(-1))).toContain('SESSION-RULE');
    expect(JSON.stringify(requests[2]!.messages.at(-1))).not.toContain('Permission denied');
    expect((await handle.status()).hookNotices).toEqual(
      expect.arrayContaining([expect.stringContaining('addRules for projectSettings was not applied')]),
    );
    await recordHistory(env.temporal.client, handle.agentId, 'hook-permission-updates');
  }, 180_000);

  it('PermissionRequest setMode changes the mode up to what the agent may have (a root: acceptEdits)', async () => {
    const dir = permissionProject('mode', [
      [
        'MODE-SWITCH',
        {
          behavior: 'allow',
          updatedPermissions: [
            { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
            { type: 'setMode', mode: 'bypassPermissions', destination: 'session' },
          ],
        },
      ],
    ]);
    env.script(
      agentNamed('mode', [
        { toolUses: [bash('echo MODE-SWITCH')] },
        { toolUses: [{ name: 'Write', input: { file_path: 'edited.txt', content: 'EDITED' } }] },
        { toolUses: [bash('echo AFTER')] },
        { toolUses: [spawn('child', 'MODE-CHILD')] },
        { text: 'done' },
      ]),
      agentPrompted('MODE-CHILD', [
        { toolUses: [{ name: 'Write', input: { file_path: 'child-edited.txt', content: 'CHILD-EDITED' } }] },
        { text: 'CHILD-DONE' },
      ]),
    );
    const handle = await env.start({ prompt: 'work', name: 'mode', cwd: dir, permissionMode: 'default' });
    expect((await handle.result()).status).toBe('completed');
    // acceptEdits: the Write ran unasked; not bypassPermissions: Bash was still asked (and the hook said no).
    expect(readFileSync(path.join(dir, 'edited.txt'), 'utf8')).toBe('EDITED');
    expect(commandsOf(dir)).toEqual(['echo MODE-SWITCH', 'echo AFTER']);
    // Hooks after the switch are told the mode the agent now has.
    expect(hookInputsOf(dir, 'PermissionRequest').map((input) => input.permission_mode)).toEqual([
      'default',
      'acceptEdits',
    ]);
    expect(JSON.stringify(requestsOf(handle.agentId)[3]!.messages.at(-1))).toContain('NOT-LISTED');
    // A child started after the switch inherits acceptEdits: its Write ran without a question.
    expect(readFileSync(path.join(dir, 'child-edited.txt'), 'utf8')).toBe('CHILD-EDITED');
    expect((await handle.status()).hookNotices).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          'setMode bypassPermissions was refused: this agent may not be more permissive than acceptEdits',
        ),
      ]),
    );
  }, 180_000);

  it('refuses a hostile updatedPermissions: bypassPermissions for a subagent of a default tree, an oversized rule', async () => {
    const dir = permissionProject('hostile', [
      [
        'CHILD-ONE',
        {
          behavior: 'allow',
          updatedPermissions: [{ type: 'setMode', mode: 'bypassPermissions', destination: 'session' }],
        },
      ],
      [
        'CHILD-TWO',
        {
          behavior: 'allow',
          updatedPermissions: [
            {
              type: 'addRules',
              rules: [{ toolName: 'Bash', ruleContent: 'x'.repeat(5_000) }],
              behavior: 'allow',
              destination: 'session',
            },
          ],
        },
      ],
    ]);
    env.script(
      agentNamed('hostile-root', [{ toolUses: [spawn('child', 'HOSTILE-CHILD')] }, { text: 'ROOT-DONE' }]),
      agentPrompted('HOSTILE-CHILD', [
        { toolUses: [bash('echo CHILD-ONE')] },
        { toolUses: [bash('echo CHILD-TWO')] },
        { text: 'CHILD-DONE' },
      ]),
    );
    const handle = await env.start({ prompt: 'delegate', name: 'hostile-root', cwd: dir, permissionMode: 'default' });
    // Not bypassPermissions, and the oversized answer was ignored whole: a person is asked about CHILD-TWO.
    const pending = async () => (await handle.tree()).pendingApprovals;
    await waitFor(async () => (await pending()).length === 1, 90_000, 'the question about CHILD-TWO');
    const [request] = await pending();
    expect(request!.inputSummary).toContain('CHILD-TWO');
    await handle.answerApproval(request!.requestId, { approve: false });
    expect((await handle.result()).finalText).toBe('ROOT-DONE');
    expect(commandsOf(dir)).toEqual(['echo CHILD-ONE', 'echo CHILD-TWO']);
    const child = await env.client.getAgent(`${handle.agentId}.1`).status();
    expect(child.hookNotices).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          'setMode bypassPermissions was refused: this agent may not be more permissive than default',
        ),
        expect.stringMatching(/its JSON output was ignored: .*ruleContent/),
      ]),
    );
  }, 180_000);

  it('a reached cap’s question (action ask) fires Notification permission_prompt in the root, naming the cap', async () => {
    const dir = project('budget', {
      '.claude/settings.json': settings({
        Notification: [
          {
            matcher: 'permission_prompt',
            hooks: [
              {
                type: 'command',
                command:
                  'cat >> "$CLAUDE_PROJECT_DIR/Notification.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/Notification.jsonl"',
              },
            ],
          },
        ],
      }),
    });
    env.script(
      agentNamed(
        'budget-ask',
        Array.from({ length: 40 }, (_, index) => ({
          text: `ASK-${index} ${'ask '.repeat(150)}`,
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
        })),
      ),
    );
    const handle = await env.start({
      prompt: 'spend and ask',
      name: 'budget-ask',
      cwd: dir,
      limits: { budget: { caps: { tokens: 8_000 }, action: 'ask' } },
    });
    const question = async () => (await handle.tree()).pendingApprovals.find((request) => request.tool === 'Budget');
    await waitFor(async () => (await question()) !== undefined, 90_000, 'the budget question');
    await waitFor(async () => hookInputsOf(dir, 'Notification').length === 1, 30_000, 'the Notification hook');
    expect(hookInputsOf(dir, 'Notification')[0]).toMatchObject({
      notification_type: 'permission_prompt',
      title: 'Permission needed',
      message: expect.stringContaining("the tree's budget of 8,000 tokens"),
    });
    await handle.answerApproval((await question())!.requestId, { approve: false, by: 'tester' });
    expect((await handle.result()).status).toBe('cancelled');
  }, 180_000);

  it('an agent of the worker’s subagentsPlugin({ agents }) is a root type for a client made with the plugin', async () => {
    const taskQueue = uniqueTaskQueue();
    const agents = { 'plugin-root': { description: 'a plugin agent', prompt: 'PLUGIN-ROOT-PROMPT', tools: ['Read'] } };
    const plugin = () =>
      subagentsPlugin({
        anthropic: new Anthropic({ apiKey: 'test-key', baseURL: env.modelServer.url, maxRetries: 0 }),
        client: env.temporal.client,
        payloadCodecs: [],
        homeDir,
        web: {},
        registerSearchAttributes: false,
        agents,
      });
    const worker = await Worker.create({
      connection: env.temporal.nativeConnection,
      namespace: 'default',
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      plugins: [plugin()],
    });
    const running = worker.run();
    try {
      env.script(agentNamed('from-plugin', [{ text: 'PLUGIN-ROOT-DONE' }]));
      const withPlugin = new SubagentsClient(
        new Client({ connection: env.temporal.client.connection, namespace: 'default', plugins: [plugin()] }),
        taskQueue,
      );
      const handle = await withPlugin.startAgent({
        prompt: 'hello',
        type: 'plugin-root',
        name: 'from-plugin',
        cwd: env.workspace,
        homeDir,
        model: 'claude-test-tiny',
        permissionMode: 'bypassPermissions',
      });
      const result = await handle.result();
      expect(result.finalText).toBe('PLUGIN-ROOT-DONE');
      const [first] = modelCallsOf(env.modelServer, handle.agentId);
      expect(JSON.stringify(JSON.parse(first!.rawBody).system)).toContain('PLUGIN-ROOT-PROMPT');
      // A client that does not have the plugin cannot see its agents: the error says what to do.
      await expect(
        new SubagentsClient(env.temporal.client, taskQueue).startAgent({
          prompt: 'x',
          type: 'plugin-root',
          cwd: env.workspace,
          homeDir,
        }),
      ).rejects.toThrow(
        /Unknown agent type "plugin-root".*subagentsPlugin\(\{ agents \}\) is not visible to this client/,
      );
    } finally {
      worker.shutdown();
      await running;
    }
  }, 180_000);
});
