// The Claude Agent SDK's agent shape on the real server: options.agents, hooks, canUseTool and progress messages.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, agentOfType, spawn } from '../helpers/scripted-agents';
import type { CanUseToolOptions, PermissionResult } from '../../src/client/can-use-tool';
import type { SdkTaskMessage } from '../../src/client/progress-messages';

const env = useAgentTestEnv();

/** The system prompt and first user text of an agent's first model call. */
function firstRequestOf(agentId: string): { system: string; user: string } {
  const request = env.modelServer
    .requests()
    .find(
      (one) => one.path === '/v1/messages' && decodeURIComponent(one.headers['x-subagents-agent-id'] ?? '') === agentId,
    );
  if (!request) throw new Error(`no model call of ${agentId}`);
  const body = JSON.parse(request.rawBody) as { system: unknown; messages: { content: unknown }[] };
  return { system: JSON.stringify(body.system), user: JSON.stringify(body.messages[0]?.content) };
}

describe('Claude Agent SDK agents', () => {
  it('runs SDK agents over a file of the same name, answers approvals at depth 2 with canUseTool, streams task messages', async () => {
    const agentsDir = path.join(env.workspace, '.claude', 'agents');
    mkdirSync(agentsDir, { recursive: true });
    writeFileSync(
      path.join(agentsDir, 'reviewer.md'),
      '---\nname: reviewer\ndescription: file reviewer\n---\nFILE-REVIEWER-PROMPT\n',
    );
    const hookLog = path.join(env.workspace, 'pre-tool-use.jsonl');
    env.script(
      agentNamed('sdk-root', [
        { toolUses: [spawn('review it', 'review the code', { subagent_type: 'reviewer' })] },
        { toolUses: [{ name: 'Bash', input: { command: 'echo root-ran > root.txt', description: 'root writes' } }] },
        { text: 'ROOT-DONE: {{last_tool_result}}' },
      ]),
      agentOfType('reviewer', [
        { toolUses: [spawn('in japanese', 'write the note', { subagent_type: 'レビュー担当' })] },
        { text: 'REVIEWER-DONE' },
      ]),
      agentOfType('レビュー担当', [
        { toolUses: [{ name: 'Write', input: { file_path: 'note.txt', content: 'ノート' } }] },
        { text: 'レビュー完了' },
      ]),
    );
    const asked: Array<{ tool: string; input: Record<string, unknown>; agentID: string; toolUseID: string }> = [];
    const canUseTool = async (
      toolName: string,
      input: Record<string, unknown>,
      options: CanUseToolOptions,
    ): Promise<PermissionResult> => {
      asked.push({ tool: toolName, input, agentID: options.agentID, toolUseID: options.toolUseID });
      return toolName === 'Write'
        ? { behavior: 'allow', updatedInput: input }
        : { behavior: 'deny', message: 'not on the root' };
    };
    const handle = await env.start({
      prompt: 'start the review',
      name: 'sdk-root',
      type: 'lead',
      permissionMode: 'default',
      canUseTool,
      agents: {
        lead: { description: 'leads', prompt: 'LEAD-PROMPT', initialPrompt: 'READ-THE-README-FIRST' },
        reviewer: { description: 'sdk reviewer', prompt: 'SDK-REVIEWER-PROMPT', model: 'inherit' },
        レビュー担当: { description: 'writes notes', prompt: 'SDK-JP-PROMPT', tools: ['Write', 'Read'] },
      },
      hooks: {
        PreToolUse: [
          { matcher: 'Write|Bash', hooks: [{ type: 'command', command: `cat >> '${hookLog}'; echo >> '${hookLog}'` }] },
        ],
      },
    });
    const messages: SdkTaskMessage[] = [];
    const streamed = (async () => {
      for await (const message of handle.progress({ pollMs: 100 })) messages.push(message);
    })();
    const result = await handle.result();
    await streamed;
    await handle.canUseToolWatcher!.done;

    expect(result.status).toBe('completed');
    expect(result.finalText).toContain('Permission denied by canUseTool: not on the root');
    expect(existsSync(path.join(env.workspace, 'root.txt'))).toBe(false);
    expect(readFileSync(path.join(env.workspace, 'note.txt'), 'utf8')).toBe('ノート');
    const child = `${handle.agentId}.1`;
    const grandchild = `${child}.1`;
    // canUseTool saw each call's full input and the agent that asked, at any depth.
    expect(asked).toEqual([
      {
        tool: 'Write',
        input: { file_path: 'note.txt', content: 'ノート' },
        agentID: grandchild,
        toolUseID: expect.any(String),
      },
      {
        tool: 'Bash',
        input: { command: 'echo root-ran > root.txt', description: 'root writes' },
        agentID: handle.agentId,
        toolUseID: expect.any(String),
      },
    ]);
    // The root's type is an SDK agent with initialPrompt; the programmatic reviewer beat the file; the grandchild got its prompt from the tree's input.
    expect(firstRequestOf(handle.agentId).system).toContain('LEAD-PROMPT');
    expect(firstRequestOf(handle.agentId).user).toMatch(/READ-THE-README-FIRST\\n\\nstart the review/);
    expect(firstRequestOf(child).system).toContain('SDK-REVIEWER-PROMPT');
    expect(firstRequestOf(child).system).not.toContain('FILE-REVIEWER-PROMPT');
    expect(firstRequestOf(grandchild).system).toContain('SDK-JP-PROMPT');
    // options.hooks ran for the grandchild's call, as settings hooks do.
    const hookInputs = readFileSync(hookLog, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { tool_name: string; hook_event_name: string });
    expect(hookInputs).toContainEqual(expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'Write' }));
    // ... and for the root's call after its turn boundaries (settings re-read at a boundary keep them).
    expect(hookInputs).toContainEqual(expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'Bash' }));

    // The progress stream: started before any notification, both subagents completed, usage and tool_use ids filled in.
    const of = (taskId: string, subtype: string) =>
      messages.filter((message) => message.task_id === taskId && message.subtype === subtype);
    for (const [taskId, type, depth] of [
      [child, 'reviewer', 1],
      [grandchild, 'レビュー担当', 2],
    ] as const) {
      expect(of(taskId, 'task_started')).toEqual([
        expect.objectContaining({
          type: 'system',
          session_id: handle.agentId,
          subagent_type: type,
          spawn_depth: depth,
          task_type: 'local_agent',
          tool_use_id: expect.stringMatching(/./),
        }),
      ]);
      const [notification] = of(taskId, 'task_notification');
      expect(notification).toMatchObject({ status: 'completed', usage: { tool_uses: 1 } });
      expect(messages.indexOf(of(taskId, 'task_started')[0]!)).toBeLessThan(messages.indexOf(notification!));
    }
    expect(of(grandchild, 'task_notification')[0]).toMatchObject({ summary: 'レビュー完了' });
  });

  it('lets a person answer first (the callback is aborted), denies when the callback throws, and stops with the run', async () => {
    env.script(
      agentNamed('sdk-abort-root', [
        { toolUses: [{ name: 'Bash', input: { command: 'echo first > first.txt', description: 'first' } }] },
        { toolUses: [{ name: 'Bash', input: { command: 'echo second > second.txt', description: 'second' } }] },
        { text: 'ABORT-DONE: {{last_tool_result}}' },
      ]),
    );
    const handle = await env.start({ prompt: 'two commands', name: 'sdk-abort-root', permissionMode: 'default' });
    const errors: unknown[] = [];
    let aborted = false;
    let entered = false;
    const watcher = await handle.answerApprovalsWith(
      async (_tool, input, { signal }) => {
        if (input.description === 'second') throw new Error('boom');
        // Never answers the first: a person does, and the callback hears it through its signal.
        entered = true;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted = true;
        return { behavior: 'deny', message: 'too late' };
      },
      { pollMs: 50, onError: (error) => errors.push(error) },
    );
    await waitFor(async () => entered, 30_000, 'canUseTool asked about the first command');
    const [first] = await handle.approvals();
    await handle.answerApproval(first!.requestId, { approve: true, by: 'a person' });
    const result = await handle.result();
    await watcher.done;
    expect(aborted).toBe(true);
    expect(existsSync(path.join(env.workspace, 'first.txt'))).toBe(true);
    expect(existsSync(path.join(env.workspace, 'second.txt'))).toBe(false);
    expect(result.finalText).toContain('Permission denied by canUseTool: canUseTool failed: boom');
    expect(errors.map(String)).toEqual(['Error: boom']);
  });

  it('refuses bad agents and callback hooks before anything starts, naming the agent and field', async () => {
    await expect(
      env.start({ prompt: 'x', agents: { reviewer: { description: 'd', prompt: 'p', maxTurns: -1 } } }),
    ).rejects.toThrow('options.agents["reviewer"].maxTurns: maxTurns must be a positive whole number.');
    await expect(env.start({ prompt: 'x', type: 'missing', agents: {} })).rejects.toThrow(
      /Unknown agent type "missing"/,
    );
    await expect(
      env.start({
        prompt: 'x',
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [async () => ({ continue: true })] }] },
      }),
    ).rejects.toThrow(/SDK callback hooks are functions of this process and cannot run durably/);
  });
});
