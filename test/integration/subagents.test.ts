// @slow
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { definitionPrompts } from '../../src/project/agent-definitions/prompt-store';
import type { SpawnContext } from '../../src/shared/agents/agent-definition';
import {
  agentTypeKey,
  parentAgentIdKey,
  rootAgentIdKey,
  agentDepthKey,
} from '../../src/shared/protocol/search-attributes';
import { modelCallsOf, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentOfType, agentPrompted, bash, spawn, spawnInBackground } from '../helpers/scripted-agents';
import { answeredRequestsOf, lastMessageBlocks, type ContentBlock } from '../helpers/model-requests';

const env = useAgentTestEnv();

const requestsOf = (agentId: string) => answeredRequestsOf(env.modelServer, agentId);

function text(block: ContentBlock | undefined): string {
  if (!block) return '';
  if (typeof block.content === 'string') return block.content;
  return block.text ?? JSON.stringify(block.content);
}

describe('subagents: the Agent tool on a real Temporal server', () => {
  it('runs a foreground Explore child with a read-only pool and returns a bounded projection', async () => {
    await env.writeFiles({ 'keep.txt': 'original\n' });
    env.script(
      agentNamed('fg-root', [
        {
          toolUses: [spawn('inspect keep file', 'Look at keep.txt and try to change it', { subagent_type: 'Explore' })],
        },
        { text: 'Child said: {{last_tool_result}}' },
      ]),
      agentOfType('Explore', [
        { toolUses: [{ name: 'Write', input: { file_path: 'keep.txt', content: 'overwritten' } }] },
        { text: 'EXPLORE-FINAL: keep.txt stays as it was' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'delegate please', name: 'fg-root' });
    const childId = `${handle.agentId}.1`;

    // The child's pool is read-only (its Bash runs read-only commands only); its Write attempt got an error and the file is untouched.
    const childRequests = requestsOf(childId);
    expect(childRequests[0]!.tools!.map((tool) => tool.name).sort()).toEqual([
      'Bash',
      'Glob',
      'Grep',
      'Read',
      'TodoWrite',
      'WebFetch',
      'WebSearch',
    ]);
    const refused = lastMessageBlocks(childRequests[1]!)[0]!;
    expect(refused.is_error).toBe(true);
    expect(text(refused)).toContain('ToolNotAllowed');
    expect(readFileSync(path.join(env.workspace, 'keep.txt'), 'utf8')).toBe('original\n');

    // The parent saw the final text alone (Explore is one-shot: no agentId), not the child's history.
    const parentResult = lastMessageBlocks(requestsOf(handle.agentId)[1]!)[0]!;
    expect(text(parentResult)).toBe('EXPLORE-FINAL: keep.txt stays as it was');
    expect(text(parentResult)).not.toContain('overwritten');
    expect(result.treeUsage.outputTokens).toBeGreaterThan(result.usage.outputTokens);

    // The child is a child workflow with the search attributes and the type's model.
    const description = await env.temporal.client.workflow.getHandle(childId).describe();
    const attributes = description.typedSearchAttributes;
    expect(attributes.get(agentTypeKey)).toBe('Explore');
    expect(attributes.get(parentAgentIdKey)).toBe(handle.agentId);
    expect(attributes.get(rootAgentIdKey)).toBe(handle.agentId);
    expect(attributes.get(agentDepthKey)).toBe(1);
    expect(
      JSON.parse(
        env.modelServer.requests().find((request) => request.headers['x-subagents-agent-id'] === childId)!.rawBody,
      ).model,
    ).toBe('claude-haiku-4-5');
    await recordHistory(env.temporal.client, handle.agentId, 'subagents-foreground-explore');
    await recordHistory(env.temporal.client, childId, 'subagents-foreground-explore-child');
  });

  it('falls back to general-purpose when no type is given, and lists valid types for an unknown one', async () => {
    env.script(
      agentNamed('fallback-root', [
        { toolUses: [spawn('no type', 'do a general task')] },
        { toolUses: [spawn('bad type', 'x', { subagent_type: 'NoSuchType' })] },
        { text: 'done' },
      ]),
      agentOfType('general-purpose', [{ text: 'GENERAL-DONE' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'fallback test', name: 'fallback-root' });
    const description = await env.temporal.client.workflow.getHandle(`${handle.agentId}.1`).describe();
    expect(description.typedSearchAttributes.get(agentTypeKey)).toBe('general-purpose');
    const unknown = lastMessageBlocks(requestsOf(handle.agentId)[2]!)[0]!;
    expect(unknown.is_error).toBe(true);
    expect(text(unknown)).toContain('Unknown agent type "NoSuchType". Valid types: Explore, Plan, general-purpose');
  });

  it('launches a background child, notifies the parent, and the parent reacts', async () => {
    env.script(
      agentNamed('bg-root', [
        { toolUses: [spawnInBackground('background job', 'slow background work')] },
        { text: 'I will wait for the background job.' },
        { text: 'Reacting to: {{last_user_text}}' },
      ]),
      agentPrompted('slow background work', [{ text: 'BACKGROUND-RESULT-42', delayMs: 1000 }]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'background test', name: 'bg-root' });
    const requests = requestsOf(handle.agentId);
    expect(text(lastMessageBlocks(requests[1]!)[0])).toContain('async_launched');
    const notification = text(lastMessageBlocks(requests[2]!)[0]);
    expect(notification).toContain('<task-notification>');
    expect(notification).toContain(`<task-id>${handle.agentId}.1</task-id>`);
    expect(notification).toContain('<status>completed</status>');
    expect(notification).toContain('BACKGROUND-RESULT-42');
    expect(result.finalText).toContain('BACKGROUND-RESULT-42');
    await recordHistory(env.temporal.client, handle.agentId, 'subagents-background-notification');
  });

  it('moves a slow foreground child to the background after the threshold without restarting it', async () => {
    env.script(
      agentNamed('auto-root', [
        { toolUses: [spawn('slow foreground', 'slow foreground task')] },
        { text: 'ok, waiting' },
        { text: 'got: {{last_user_text}}' },
      ]),
      agentPrompted('slow foreground task', [
        { toolUses: [{ name: 'Glob', input: { pattern: '*.md' } }], delayMs: 1500 },
        { text: 'SLOW-CHILD-DONE', delayMs: 500 },
      ]),
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'auto background test',
      name: 'auto-root',
      limits: { autoBackgroundMs: 1000 },
    });
    const requests = requestsOf(handle.agentId);
    expect(text(lastMessageBlocks(requests[1]!)[0])).toMatch(
      /still running after 1 s and now runs in the background without having been restarted/,
    );
    expect(result.finalText).toContain('SLOW-CHILD-DONE');
    // One uninterrupted run: one execution, its model called exactly twice.
    const childId = `${handle.agentId}.1`;
    const history = await env.temporal.client.workflow.getHandle(childId).fetchHistory();
    expect((history.events ?? []).filter((event) => event.workflowExecutionStartedEventAttributes)).toHaveLength(1);
    expect(requestsOf(childId)).toHaveLength(2);
    expect((await handle.tree()).nodes.find((node) => node.agentId === childId)).toMatchObject({
      background: true,
      status: 'finished',
    });
  });

  it('tells the root when a grandchild moves to the background, so the tree lists it as background', async () => {
    env.script(
      agentNamed('auto-grand-root', [
        {
          toolUses: [spawn('middle', 'middle agent task', { subagent_type: 'general-purpose' })],
        },
        { text: 'root done' },
      ]),
      agentPrompted('middle agent task', [
        { toolUses: [spawn('slow grandchild', 'slow grandchild task')] },
        { text: 'middle waiting' },
        { text: 'middle done' },
      ]),
      agentPrompted('slow grandchild task', [
        { toolUses: [{ name: 'Glob', input: { pattern: '*.md' } }], delayMs: 2000 },
        { text: 'GRANDCHILD-DONE' },
      ]),
    );
    const handle = await env.start({
      prompt: 'grandchild auto background',
      name: 'auto-grand-root',
      limits: { autoBackgroundMs: 1000 },
    });
    const grandchild = `${handle.agentId}.1.1`;
    await waitFor(
      async () => (await handle.tree()).nodes.some((node) => node.agentId === grandchild && node.background),
      30_000,
      'the grandchild to be listed as background',
    );
    expect((await handle.result()).status).toBe('completed');
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'subagents-auto-background-middle');
  });

  it('enforces the depth limit, per-agent concurrency and per-tree concurrency with clear errors', async () => {
    env.script(
      agentNamed('limits-root', [
        {
          toolUses: [1, 2, 3].map((index) => spawnInBackground(`worker ${index}`, `limited worker ${index}`)),
        },
        { text: 'launched' },
        { text: 'one done' },
        { text: 'two done' },
      ]),
      agentPrompted('limited worker 1', [
        {
          toolUses: [spawn('grandchild', 'grandchild work')],
          delayMs: 300,
        },
        { text: 'worker 1 done: {{last_tool_result}}' },
      ]),
      agentPrompted('limited worker 2', [{ text: 'worker 2 done', delayMs: 800 }]),
      agentPrompted('grandchild work', [{ text: 'grandchild done' }]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'limits test',
      name: 'limits-root',
      limits: { maxChildrenPerAgent: 2, maxAgentsPerTree: 2, maxDepth: 1 },
    });
    const results = lastMessageBlocks(requestsOf(handle.agentId)[1]!);
    expect(results.map((block) => block.is_error === true)).toEqual([false, false, true]);
    expect(text(results[2])).toContain('SpawnLimitReached: this agent already has 2 running subagents (limit 2)');
    // maxDepth 1: the children have no Agent tool, and calling it anyway is refused.
    const childRequests = requestsOf(`${handle.agentId}.1`);
    expect(childRequests[0]!.tools!.map((tool) => tool.name)).not.toContain('Agent');
    expect(text(lastMessageBlocks(childRequests[1]!)[0])).toContain('ToolNotAllowed');
  });

  it('refuses a spawn over the per-tree limit, decided by the root for a grandchild', async () => {
    env.script(
      agentNamed('tree-root', [
        { toolUses: [spawn('middle', 'middle manager')] },
        { text: 'tree done: {{last_tool_result}}' },
      ]),
      agentPrompted('middle manager', [
        { toolUses: [spawnInBackground('leaf a', 'leaf a work'), spawnInBackground('leaf b', 'leaf b work')] },
        { text: 'middle waits' },
        { text: 'middle done' },
      ]),
      agentPrompted('leaf a work', [{ text: 'leaf a done', delayMs: 300 }]),
      agentPrompted('leaf b work', [{ text: 'leaf b done' }]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'tree limit test',
      name: 'tree-root',
      limits: { maxAgentsPerTree: 2 },
    });
    // The two spawns ask the root concurrently (signals carry no order between them): exactly one is refused.
    const middle = lastMessageBlocks(requestsOf(`${handle.agentId}.1`)[1]!);
    const refused = middle.filter((block) => block.is_error);
    expect(refused).toHaveLength(1);
    expect(text(refused[0])).toContain('this agent tree already has 2 running agents (limit 2)');
    expect(middle.filter((block) => !block.is_error).map((block) => text(block))[0]).toContain('async_launched');
    await recordHistory(env.temporal.client, handle.agentId, 'subagents-tree-limit');
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'subagents-tree-limit-middle');
  });

  it('stops background agents and the root at the tree token budget, with the reason in their results', async () => {
    env.script(
      agentNamed('budget-root', [
        { toolUses: [spawnInBackground('spender', 'spend tokens forever')] },
        { text: 'waiting for the spender' },
        { toolUses: [spawn('late', 'too late')] },
        { text: 'budget test over' },
      ]),
      {
        match: { userIncludes: 'spend tokens forever' },
        turns: Array.from({ length: 40 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '**/*.none' } }],
          delayMs: 50,
        })),
      },
    );
    const handle = await env.start({ prompt: 'budget test', name: 'budget-root', limits: { treeTokenBudget: 60000 } });
    const result = await handle.result();
    // The budget stops the whole tree, the waiting root included (docs/architecture.md, Limits).
    expect(result.status).toBe('cancelled');
    expect(result.error).toContain("stopped by budget: the tree's budget of 60,000 tokens");
    expect(result.finalText).toBe('waiting for the spender');
    expect(requestsOf(handle.agentId)).toHaveLength(2);
    const spender = await env.temporal.client.workflow.getHandle(`${handle.agentId}.1`).describe();
    expect(spender.status.name).toBe('CANCELLED');
    const spenderResult = (await env.client.getAgent(`${handle.agentId}.1`).status()).result!;
    expect(spenderResult.error).toContain("the tree's budget of 60,000 tokens");
    expect(requestsOf(`${handle.agentId}.1`).length).toBeLessThan(40);
  });

  it('delivers SendMessage to a running agent at its next turn, and resumes a finished one', async () => {
    env.script(
      agentNamed('send-root', [
        {
          toolUses: [spawnInBackground('listener', 'listen for messages', { name: 'listener' })],
        },
        { toolUses: [{ name: 'SendMessage', input: { to: 'listener', message: 'PING-FROM-ROOT' } }] },
        { text: 'waiting for listener' },
        { toolUses: [{ name: 'SendMessage', input: { to: 'listener', message: 'PLEASE-CONTINUE' } }] },
        { text: 'waiting for the resumed listener' },
        { text: 'all done: {{last_user_text}}' },
      ]),
      agentNamed('listener', [
        { toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }], delayMs: 1500 },
        { text: 'listener got: {{last_user_text}}' },
        { text: 'RESUMED-LISTENER saw {{last_user_text}}' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'send test', name: 'send-root' });
    const childId = `${handle.agentId}.1`;
    const childRequests = requestsOf(childId);
    // Running: the message arrives after the tool result, in the same user message.
    const delivered = lastMessageBlocks(childRequests[1]!);
    expect(delivered[0]!.type).toBe('tool_result');
    expect(text(delivered[1])).toContain('PING-FROM-ROOT');
    // Finished: a new run of the same agentId continues from its history with the message.
    expect(childRequests).toHaveLength(3);
    expect(childRequests[2]!.messages.length).toBeGreaterThan(childRequests[1]!.messages.length);
    expect(text(lastMessageBlocks(childRequests[2]!)[0])).toContain('PLEASE-CONTINUE');
    expect(result.finalText).toContain('RESUMED-LISTENER');
    await recordHistory(env.temporal.client, handle.agentId, 'subagents-send-message');
    const runs = [];
    for await (const execution of env.temporal.client.workflow.list({ query: `WorkflowId = '${childId}'` }))
      runs.push(execution.runId);
    expect(runs).toHaveLength(2);
  });

  it('runs more than 10 Agent calls of one message in a sliding window: the 11th starts while the first still runs', async () => {
    const calls = Array.from({ length: 11 }, (_, index) => spawn(`part ${index + 1}`, `window part ${index + 1}.`));
    // Part 1 runs until the test sees part 11 start (no fixed delay: a loaded machine spawns slowly); the others answer at once.
    const release = path.join(env.workspace, 'window-part-1-release');
    env.script(
      agentNamed('window-root', [{ toolUses: calls }, { text: 'all parts done' }]),
      agentPrompted('window part 1.', [
        { toolUses: [bash(`until [ -e ${release} ]; do sleep 0.1; done`)] },
        { text: 'part 1 done' },
      ]),
      agentPrompted('window part', [{ text: 'part done' }]),
    );
    const handle = await env.start({ prompt: 'eleven parts', name: 'window-root' });
    const calledBy = (agentId: string) => modelCallsOf(env.modelServer, agentId);
    // In fixed batches of 10, part 11 would wait for part 1, which waits for part 11: this wait would time out.
    await waitFor(() => calledBy(`${handle.agentId}.11`).length > 0, 90_000, 'part 11 to start while part 1 runs');
    expect(calledBy(`${handle.agentId}.1`)).toHaveLength(1);
    writeFileSync(release, '');
    expect((await handle.result()).status).toBe('completed');
    // Every call answered, in the order of the calls.
    const second = requestsOf(handle.agentId)[1]!;
    const results = lastMessageBlocks(second).filter((block) => block.type === 'tool_result');
    const asked = second.messages.at(-2)!.content as (ContentBlock & { id?: string })[];
    expect(results.map((block) => block.tool_use_id)).toEqual(asked.map((block) => block.id));
    expect(results.map((block) => text(block).split('\n')[0])).toEqual([
      'part 1 done',
      ...Array.from({ length: 10 }, () => 'part done'),
    ]);
    await recordHistory(env.temporal.client, handle.agentId, 'sliding-tool-window-root');
  });

  it('spawns custom types from .claude/agents with precedence, a broken file and an unknown tool', async () => {
    const agentsDir = path.join(env.workspace, '.claude', 'agents');
    mkdirSync(agentsDir, { recursive: true });
    writeFileSync(
      path.join(agentsDir, 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews files\ntools: Read, NotebookEdit\nmodel: opus\n---\nYou are REVIEWER-PROMPT.\n',
    );
    writeFileSync(
      path.join(agentsDir, 'explore.md'),
      '---\nname: Explore\ndescription: Project explorer\ntools: [Grep]\n---\nPROJECT-EXPLORE-PROMPT\n',
    );
    writeFileSync(path.join(agentsDir, 'broken.md'), '---\nname: [unclosed\n---\nbody\n');
    env.script(
      agentNamed('custom-root', [
        {
          toolUses: [
            spawn('review', 'review it', { subagent_type: 'reviewer' }),
            spawn('explore', 'explore it', { subagent_type: 'Explore' }),
          ],
        },
        { text: 'custom done' },
      ]),
      agentOfType('reviewer', [{ text: 'reviewed' }]),
      agentOfType('Explore', [{ text: 'explored' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'custom types', name: 'custom-root' });
    const reviewer = requestsOf(`${handle.agentId}.1`)[0]!;
    expect(reviewer.tools!.map((tool) => tool.name)).toEqual(['Read']);
    expect(JSON.stringify((reviewer as unknown as { system: unknown }).system)).toContain('REVIEWER-PROMPT');
    expect((reviewer as unknown as { model: string }).model).toBe('claude-opus-5');
    const explore = requestsOf(`${handle.agentId}.2`)[0]!;
    expect(explore.tools!.map((tool) => tool.name)).toEqual(['Grep']);
    expect(JSON.stringify((explore as unknown as { system: unknown }).system)).toContain('PROJECT-EXPLORE-PROMPT');
    // The broken file did not stop the spawns: the root's definition load (at start, with its roster: a local activity,
    // whose result is in its marker, or an activity) reported it as skipped.
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const spawnContext = (history.events ?? [])
      .flatMap(
        (event) =>
          event.activityTaskCompletedEventAttributes?.result?.payloads ??
          event.markerRecordedEventAttributes?.details?.result?.payloads ??
          [],
      )
      .map(
        (payload) =>
          defaultPayloadConverter.fromPayload(payload as Payload) as Partial<SpawnContext> & {
            spawnContext?: Partial<SpawnContext>;
          },
      )
      .map((result) => result?.spawnContext ?? result)
      .find((result) => result?.loaded?.reports !== undefined);
    expect(spawnContext?.loaded?.reports).toContainEqual(
      expect.objectContaining({ file: path.join(agentsDir, 'broken.md'), level: 'skipped' }),
    );
    expect(Object.keys(spawnContext!.loaded!.definitions).sort()).toEqual([
      'Explore',
      'Plan',
      'general-purpose',
      'reviewer',
    ]);
    // The root recorded its types' digests, not their prompts: a child gets its type's prompt at its start.
    // Every payload of the history, decoded (fetched histories carry them base64-encoded).
    const payloadTexts = (events: typeof history.events) =>
      JSON.stringify(events ?? [], (_key, value: unknown) => {
        const payload = value as { metadata?: unknown; data?: unknown } | null;
        if (
          typeof payload !== 'object' ||
          payload === null ||
          payload.metadata === undefined ||
          payload.data === undefined
        )
          return value;
        return typeof payload.data === 'string'
          ? Buffer.from(payload.data, 'base64').toString('utf8')
          : Buffer.from(payload.data as Uint8Array).toString('utf8');
      });
    expect(payloadTexts(history.events)).toContain('Reviews files');
    expect(payloadTexts(history.events)).not.toContain('REVIEWER-PROMPT');
    expect(spawnContext!.loaded!.definitions.reviewer!.prompt).toBe('');
    expect(Object.keys(spawnContext!.promptDigests!).sort()).toEqual([
      'Explore',
      'Plan',
      'general-purpose',
      'reviewer',
    ]);
    const childStarted = (await env.temporal.client.workflow.getHandle(`${handle.agentId}.1`).fetchHistory())
      .events![0]!.workflowExecutionStartedEventAttributes!;
    const childInput = defaultPayloadConverter.fromPayload(childStarted.input!.payloads![0] as Payload) as {
      definitionPrompt: string;
      definitionPromptRef?: { digest: string; file?: string };
    };
    expect(childInput.definitionPrompt).toBe('');
    expect(childInput.definitionPromptRef).toEqual({
      digest: spawnContext!.promptDigests!.reviewer,
      file: path.join(agentsDir, 'reviewer.md'),
    });
    await recordHistory(env.temporal.client, handle.agentId, 'subagents-prompts-by-digest');
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'subagents-prompts-by-digest-child');
  });

  /**
   * A root in its own workspace with one agent file, whose first model call (1.5 s) spawns that type;
   * returns once the root has loaded its types (its first request arrived), before the spawn.
   */
  async function rootSpawningFromFile(name: string, type: string, prompt: string) {
    const cwd = path.join(env.workspace, name);
    mkdirSync(path.join(cwd, '.claude', 'agents'), { recursive: true });
    const file = path.join(cwd, '.claude', 'agents', `${type}.md`);
    const writeType = (body: string) =>
      writeFileSync(file, `---\nname: ${type}\ndescription: A ${type}\ntools: Read\n---\n${body}\n`);
    writeType(prompt);
    env.script(
      agentNamed(name, [
        {
          delayMs: 1_500,
          toolUses: [spawn(type, 'do it', { subagent_type: type })],
        },
        { text: 'noted' },
      ]),
      agentOfType(type, [{ text: `${type} done` }]),
    );
    const handle = await env.start({ prompt: name, name, cwd });
    // Requests are logged as they arrive: the root's first one means its start (and load of its types) is done.
    await waitFor(() => modelCallsOf(env.modelServer, handle.agentId).length > 0, 30_000, 'the root to call the model');
    return { handle, file, writeType };
  }

  it('starts a child with the prompt its parent loaded, also when the file changed after the parent started', async () => {
    const { handle, writeType } = await rootSpawningFromFile(
      'edited-root',
      'auditor',
      'You are AUDITOR-PROMPT-AS-LOADED.',
    );
    writeType('You are AUDITOR-PROMPT-EDITED-LATER.');
    expect((await handle.result()).status).toBe('completed');
    const system = JSON.stringify((requestsOf(`${handle.agentId}.1`)[0] as unknown as { system: unknown }).system);
    expect(system).toContain('AUDITOR-PROMPT-AS-LOADED');
    expect(system).not.toContain('EDITED-LATER');
  });

  it('fails a child whose type file is gone and whose prompt no worker holds, and the parent reads why', async () => {
    const { handle, file } = await rootSpawningFromFile('gone-root', 'vanishing', 'You are VANISHING.');
    // The file goes, and the worker forgets the prompt (as after a restart of every worker).
    rmSync(file);
    definitionPrompts.clear();
    expect((await handle.result()).status).toBe('completed');
    const toolResult = text(
      lastMessageBlocks(requestsOf(handle.agentId)[1]!).find((block) => block.type === 'tool_result'),
    );
    expect(toolResult).toContain('AgentTypeGone: agent type "vanishing" was defined in');
    expect(toolResult).toContain('Restore the file, or start the agent again');
    expect(requestsOf(`${handle.agentId}.1`)).toEqual([]);
  });
});
