import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestBodies, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { processesMatching } from '../helpers/processes';
import { agentPrompted, bash } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string };

/** The tool_result blocks of the last user message of request `index`. */
function toolResultsOf(index: number): Block[] {
  const body = requestBodies(env.modelServer)[index]!;
  const last = body.messages[body.messages.length - 1]!;
  return (last.content as Block[]).filter((block) => block.type === 'tool_result');
}

function resultText(block: Block): string {
  return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
}

describe('agent query loop on a real Temporal server', () => {
  it('runs a multi-turn conversation with tools and returns the final text and usage', async () => {
    await env.writeFiles({ 'notes/a.md': '# Alpha\nfirst file\n', 'notes/b.md': '# Beta\nsecond file\n' });
    env.modelServer.clearRequests();
    env.script(
      agentPrompted('summarise the notes', [
        { toolUses: [{ name: 'Glob', input: { pattern: 'notes/*.md' } }] },
        {
          toolUses: [
            { name: 'Read', input: { file_path: 'notes/a.md' } },
            { name: 'Read', input: { file_path: 'notes/b.md' } },
          ],
        },
        { toolUses: [{ name: 'Write', input: { file_path: 'summary.txt', content: 'Alpha and Beta' } }] },
        { text: 'Wrote summary.txt: {{last_tool_result}}' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'Please summarise the notes into summary.txt' });
    expect(result.turns).toBe(4);
    expect(result.toolUses).toBe(4);
    expect(result.finalText).toContain('Wrote summary.txt');
    expect(readFileSync(path.join(env.workspace, 'summary.txt'), 'utf8')).toBe('Alpha and Beta');
    expect(
      result.usage.inputTokens + result.usage.cacheReadInputTokens + result.usage.cacheCreationInputTokens,
    ).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);

    expect(requestBodies(env.modelServer)).toHaveLength(4);
    expect(resultText(toolResultsOf(1)[0]!)).toMatch(/notes\/(a|b)\.md/);
    const reads = toolResultsOf(2);
    expect(reads).toHaveLength(2);
    expect(resultText(reads[0]!)).toContain('# Alpha');
    expect(resultText(reads[1]!)).toContain('# Beta');
    // Later turns read the earlier turns' prefix from the prompt cache.
    const usages = env.modelServer
      .requests()
      .map((request) => request.usage as { cache_read_input_tokens?: number } | undefined);
    expect(usages[3]?.cache_read_input_tokens ?? 0).toBeGreaterThan(0);
    await recordHistory(env.temporal.client, handle.agentId, 'loop-multi-turn');
  });

  it('runs the read-only tools of one turn concurrently', async () => {
    await env.writeFiles({ 'c1.txt': 'one', 'c2.txt': 'two', 'c3.txt': 'three' });
    env.script(
      agentPrompted('search three ways', [
        {
          // A TodoWrite first: the searches after it are not the answer's leading file reads, which would
          // come back with the model call (src/workflows/tools/pre-reads.ts), so they run as activities of this turn.
          toolUses: [
            {
              name: 'TodoWrite',
              input: { todos: [{ content: 'search', activeForm: 'Searching', status: 'in_progress' }] },
            },
            { name: 'Glob', input: { pattern: 'c*.txt' } },
            { name: 'Grep', input: { pattern: 'thr', output_mode: 'files_with_matches' } },
            { name: 'Glob', input: { pattern: '*.md' } },
          ],
        },
        { text: 'done' },
      ]),
    );
    const { handle } = await runCompleted(env, { prompt: 'search three ways' });
    const history = await env.temporal.client.workflow.getHandle(handle.agentId).fetchHistory();
    const searches = new Set(['Glob', 'Grep']);
    const kinds = (history.events ?? [])
      .map((event) =>
        searches.has(event.activityTaskScheduledEventAttributes?.activityType?.name ?? '')
          ? 'scheduled'
          : event.activityTaskCompletedEventAttributes
            ? 'completed'
            : undefined,
      )
      .filter(Boolean);
    // All three are scheduled before any of them completes.
    const firstCompletedAfterScheduling = kinds.indexOf('completed', kinds.indexOf('scheduled'));
    expect(kinds.slice(kinds.indexOf('scheduled'), firstCompletedAfterScheduling)).toEqual([
      'scheduled',
      'scheduled',
      'scheduled',
    ]);
    const results = requestBodies(env.modelServer).at(-1)!.messages.at(-1)!;
    expect(JSON.stringify(results)).toContain('c3.txt');
  });

  it('refuses path escapes: "..", an absolute path outside, a symlink out of the workspace', async () => {
    const outside = path.join(env.workspace, '..', `outside-${Date.now()}.txt`);
    writeFileSync(outside, 'secret');
    symlinkSync(outside, path.join(env.workspace, 'link.txt'));
    env.modelServer.clearRequests();
    env.script(
      agentPrompted('escape', [
        {
          toolUses: [
            { name: 'Read', input: { file_path: `../${path.basename(outside)}` } },
            { name: 'Read', input: { file_path: outside } },
            { name: 'Read', input: { file_path: 'link.txt' } },
            { name: 'Write', input: { file_path: '../escaped.txt', content: 'x' } },
          ],
        },
        { text: 'could not' },
      ]),
    );
    const result = await (await env.start({ prompt: 'try to escape' })).result();
    expect(result.status).toBe('completed');
    const results = toolResultsOf(1);
    expect(results).toHaveLength(4);
    for (const block of results) {
      expect(block.is_error).toBe(true);
      expect(resultText(block)).toContain('PathOutsideWorkspace');
      expect(resultText(block)).not.toContain('secret');
    }
  });

  it('refuses an Edit of a file the agent has not read, and allows it after a Read', async () => {
    await env.writeFiles({ 'edit-me.txt': 'hello world\n' });
    env.modelServer.clearRequests();
    env.script(
      agentPrompted('edit it', [
        { toolUses: [{ name: 'Edit', input: { file_path: 'edit-me.txt', old_string: 'world', new_string: 'there' } }] },
        { toolUses: [{ name: 'Read', input: { file_path: 'edit-me.txt' } }] },
        { toolUses: [{ name: 'Edit', input: { file_path: 'edit-me.txt', old_string: 'world', new_string: 'there' } }] },
        { text: 'edited' },
      ]),
    );
    const result = await (await env.start({ prompt: 'edit it please' })).result();
    expect(result.status).toBe('completed');
    const refused = toolResultsOf(1)[0]!;
    expect(refused.is_error).toBe(true);
    expect(resultText(refused)).toContain('FileNotRead');
    expect(toolResultsOf(3)[0]!.is_error).toBeFalsy();
    expect(readFileSync(path.join(env.workspace, 'edit-me.txt'), 'utf8')).toBe('hello there\n');
  });

  it('gives a tool outside the pool an error result without running it', async () => {
    env.modelServer.clearRequests();
    env.script(
      agentPrompted('read-only task', [
        { toolUses: [{ name: 'Write', input: { file_path: 'nope.txt', content: 'x' } }] },
        { text: 'ok' },
      ]),
    );
    const result = await (
      await env.start({ prompt: 'a read-only task', type: 'Explore', model: 'claude-test-tiny' })
    ).result();
    expect(result.status).toBe('completed');
    const refused = toolResultsOf(1)[0]!;
    expect(refused.is_error).toBe(true);
    expect(resultText(refused)).toContain('ToolNotAllowed');
    expect(() => readFileSync(path.join(env.workspace, 'nope.txt'))).toThrow();
  });

  it('stops at the max-turns limit with a clear result', async () => {
    env.script({
      match: { userIncludes: 'loop forever' },
      turns: Array.from({ length: 10 }, () => ({ toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }] })),
    });
    const result = await (await env.start({ prompt: 'loop forever', maxTurns: 3 })).result();
    expect(result.status).toBe('max_turns');
    expect(result.turns).toBe(3);
    expect(result.error).toContain('MaxTurnsExceeded');
  });

  it('times out a Bash command and kills it', async () => {
    env.modelServer.clearRequests();
    env.script(
      agentPrompted('slow command', [
        { toolUses: [{ name: 'Bash', input: { command: 'sleep 20; echo finished', timeout: 500 } }] },
        { text: 'it timed out' },
      ]),
    );
    const result = await (await env.start({ prompt: 'run the slow command' })).result();
    expect(result.status).toBe('completed');
    const block = toolResultsOf(1)[0]!;
    expect(block.is_error).toBe(true);
    expect(resultText(block)).toMatch(/timed out/i);
    expect(resultText(block)).not.toContain('finished');
  });

  it('kills a running Bash command when the agent is stopped', async () => {
    env.script(agentPrompted('cancel my command', [{ toolUses: [bash('touch bash-started.txt; sleep 60.4321')] }]));
    const handle = await env.start({ prompt: 'cancel my command' });
    const startedFile = path.join(env.workspace, 'bash-started.txt');
    await waitFor(() => existsSync(startedFile), 30_000, 'the command to start');
    // The command runs in its own PID namespace: it is found by its unique sleep length.
    const alive = () => processesMatching('^sleep 60.4321').length > 0;
    expect(alive()).toBe(true);
    await handle.stop({ reason: 'cancel the command' });
    await expect(handle.result()).rejects.toThrow();
    await waitFor(() => !alive(), 15_000, 'the Bash process to be killed');
  });

  it('fails fast on a 400 with the API error message', async () => {
    env.modelServer.clearRequests();
    env.modelServer.setBehaviour({ kind: 'echo' });
    const result = await (await env.start({ prompt: 'hello', maxOutputTokens: 0 })).result();
    expect(result.status).toBe('failed');
    expect(result.error).toContain('ModelInvocationError.BadRequest');
    expect(result.error).toContain('max_tokens');
    expect(env.modelServer.requests().filter((request) => request.path === '/v1/messages')).toHaveLength(1);
  });

  it('retries a 429 after the retry-after delay, then succeeds', async () => {
    env.modelServer.clearRequests();
    env.script(agentPrompted('rate limited', [{ text: 'made it', fault: { kind: '429', retryAfterSeconds: 2 } }]));
    const result = await (await env.start({ prompt: 'rate limited request' })).result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('made it');
    const requests = env.modelServer.requests().filter((request) => request.path === '/v1/messages');
    expect(requests.map((request) => request.status)).toEqual([429, 200]);
    expect(requests[1]!.receivedAt - requests[0]!.receivedAt).toBeGreaterThanOrEqual(1900);
  });

  it('fails fast on a non-retryable model error with a clear message', async () => {
    env.modelServer.clearRequests();
    env.modelServer.setBehaviour({ kind: 'echo' });
    const handle = await env.start({ prompt: 'hello', model: 'claude-does-not-exist' });
    const result = await handle.result();
    expect(result.status).toBe('failed');
    expect(result.error).toContain('ModelInvocationError.NotFound');
    expect(result.error).toContain('claude-does-not-exist');
    expect(env.modelServer.requests().filter((request) => request.path === '/v1/messages')).toHaveLength(1);
    const description = await handle.describe();
    expect(description.status.name).toBe('FAILED');
  });
});
