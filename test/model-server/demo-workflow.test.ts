import type Anthropic from '@anthropic-ai/sdk';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { reviewScriptFile } from '../../src/model-server/demo-workflow-lead';
import { clientFor, serverPerTest } from './helpers';

// The demo model as a workflow-writing lead, request by request (the fixtures are the conversations the runtime sends).
const servers = serverPerTest();

const definition = (
  name: string,
  properties: Record<string, unknown>,
  description = `${name} tool`,
): Anthropic.Tool => ({
  name,
  description,
  input_schema: { type: 'object', properties },
});
const glob = definition('Glob', { pattern: { type: 'string' } });
const read = definition('Read', { file_path: { type: 'string' } });
const workflowProperties = {
  script: { type: 'string' },
  name: { type: 'string' },
  scriptPath: { type: 'string' },
  args: {},
  resumeFromRunId: { type: 'string' },
};
const workflow = definition('Workflow', workflowProperties, 'Runs an orchestration script in the background.');
const workflowWithSaved = definition(
  'Workflow',
  workflowProperties,
  'Runs an orchestration script in the background.\n\nSaved scripts:\n- review: Review a repository (project)\n- triage: Triage issues (user)',
);

const prompt = 'Run a workflow review of this repository.';
const listing = 'src/a.ts\nsrc/b.ts\ntest/a.test.ts\nnode_modules/x/index.js\n.github/ci.yml\ndocs/guide.md';

async function ask(tools: Anthropic.Tool[], messages: Anthropic.MessageParam[]): Promise<Anthropic.Message> {
  const client = clientFor(servers.current(), {
    headers: { 'x-subagents-agent-id': 'lead', 'x-subagents-agent-type': 'general-purpose' },
  });
  return client.messages.create({ model: 'claude-test-tiny', max_tokens: 4096, tools, messages });
}
const toolUses = (message: Anthropic.Message): Anthropic.ToolUseBlock[] =>
  message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
const textOf = (message: Anthropic.Message): string =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const result = (id: string, content: string, isError = false): Anthropic.MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
});

/** The conversation up to the Workflow call: the prompt, the folder listing and its result. */
async function untilWorkflowCall(
  tools: Anthropic.Tool[],
): Promise<{ call: Anthropic.ToolUseBlock; messages: Anthropic.MessageParam[] }> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
  const first = await ask(tools, messages);
  const [listingCall] = toolUses(first);
  expect(listingCall).toMatchObject({ name: 'Glob', input: { pattern: '*/*' } });
  messages.push({ role: 'assistant', content: first.content }, result(listingCall!.id, listing));
  const second = await ask(tools, messages);
  expect(second.stop_reason).toBe('tool_use');
  const [call] = toolUses(second);
  expect(call?.name).toBe('Workflow');
  messages.push({ role: 'assistant', content: second.content });
  return { call: call!, messages };
}

const notification = (toolUseId: string, status: string, body: string): string =>
  [
    '<task-notification>',
    '<task-id>lead.wf-1</task-id>',
    `<tool-use-id>${toolUseId}</tool-use-id>`,
    `<status>${status}</status>`,
    `<summary>Agent "review" ${status}</summary>`,
    `<result>${body}</result>`,
    '<usage>total_tokens: 900, tool_uses: 0, duration_ms: 1200</usage>',
    '</task-notification>',
  ].join('\n');

describe('demo behaviour: the workflow-writing lead', () => {
  it('writes the bundled review script inline with the folders it listed, waits, then summarises the run', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const { call, messages } = await untilWorkflowCall([glob, read, workflow]);
    const source = await readFile(reviewScriptFile, 'utf8');
    expect(call.input).toEqual({ script: source, args: { folders: ['docs', 'src', 'test'] } });

    messages.push(result(call.id, 'Workflow run lead.wf-1 launched in the background (status: async_launched).'));
    const waiting = await ask([glob, read, workflow], messages);
    expect(waiting.stop_reason).toBe('end_turn');
    expect(textOf(waiting)).toContain('running in the background (Workflow run lead.wf-1 launched');

    const runResult = JSON.stringify({
      report: 'Review report: 2 confirmed finding(s) in 1 folder(s).',
      confirmed: 2,
      refuted: 1,
    });
    messages.push(
      { role: 'assistant', content: waiting.content },
      { role: 'user', content: notification(call.id, 'completed', runResult) },
    );
    const summary = await ask([glob, read, workflow], messages);
    expect(summary.stop_reason).toBe('end_turn');
    expect(textOf(summary)).toBe(
      'The review workflow finished: 2 finding(s) confirmed, 1 refuted.\n\nReview report: 2 confirmed finding(s) in 1 folder(s).',
    );
  });

  it('runs the saved "review" script by name when the tool lists it', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const { call } = await untilWorkflowCall([glob, workflowWithSaved]);
    expect(call.input).toEqual({ name: 'review', args: { folders: ['docs', 'src', 'test'] } });
  });

  it('without a Glob tool it lets the script use its default folders; "ultracode" triggers it too', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const message = await ask([workflowWithSaved], [{ role: 'user', content: 'ultracode: review everything' }]);
    expect(toolUses(message).map((use) => use.input)).toEqual([{ name: 'review' }]);
  });

  it('reports a refused launch and a failed run instead of a summary', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const { call, messages } = await untilWorkflowCall([glob, workflowWithSaved]);
    const refused = await ask(
      [glob, workflowWithSaved],
      [...messages, result(call.id, 'InvalidScript: line 3:1: meta must come first', true)],
    );
    expect(textOf(refused)).toBe('The review workflow did not start: InvalidScript: line 3:1: meta must come first');
    const failed = notification(call.id, 'failed', 'Agent failed: the script threw: boom');
    const launched = await ask([glob, workflowWithSaved], [...messages, result(call.id, 'launched')]);
    const answer = await ask(
      [glob, workflowWithSaved],
      [
        ...messages,
        result(call.id, 'launched'),
        { role: 'assistant', content: launched.content },
        { role: 'user', content: failed },
      ],
    );
    expect(textOf(answer)).toBe('The review workflow failed without a report: Agent failed: the script threw: boom');
  });

  it('stays the ordinary demo without the Workflow tool or without a trigger word', async () => {
    await servers.start({ behaviour: { kind: 'demo' } });
    const noTool = await ask([glob, read], [{ role: 'user', content: prompt }]);
    expect(toolUses(noTool).map((use) => use.input)).toEqual([{ pattern: '**/*.md' }, { pattern: 'src/**/*.ts' }]);
    // The demo command's default prompt says "workflows": a plural is not the keyword.
    const plain = await ask(
      [glob, workflow],
      [{ role: 'user', content: 'Explore this repository: where the Temporal workflows and the CLI live.' }],
    );
    expect(toolUses(plain).map((use) => use.name)).toEqual(['Glob', 'Glob']);
  });
});
