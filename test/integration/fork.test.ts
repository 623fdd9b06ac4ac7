import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { answeredCallsOf } from '../helpers/model-requests';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, spawn } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

type Block = { type: string; text?: string; content?: unknown; is_error?: boolean };
interface Body {
  messages: { role: string; content: string | Block[] }[];
  tools?: { name: string }[];
  system?: unknown;
  model?: string;
}

function rawRequestsOf(agentId: string): string[] {
  return answeredCallsOf(env.modelServer, agentId).map((request) => request.rawBody);
}

function lastUserBlocks(body: Body): Block[] {
  const last = body.messages[body.messages.length - 1]!;
  return typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
}

function text(block: Block | undefined): string {
  if (!block) return '';
  return typeof block.content === 'string' ? block.content : (block.text ?? JSON.stringify(block.content));
}

function commonPrefixLength(bodies: string[]): number {
  let length = 0;
  while (bodies.every((body) => body[length] !== undefined && body[length] === bodies[0]![length])) length += 1;
  return length;
}

describe('fork subagents', () => {
  it('gives 5 forks of one message byte-identical request prefixes up to their directives', async () => {
    const context = Array.from(
      { length: 200 },
      (_, index) => `Context line ${index}: the parser lives in src/parser.ts.`,
    ).join('\n');
    env.script(
      agentNamed('fork-root', [
        {
          text: 'Splitting the work into five forks.',
          toolUses: [1, 2, 3, 4, 5].map((index) => spawn(`part ${index}`, `DIRECTIVE-${index}: check area ${index}`)),
        },
        ...Array.from({ length: 6 }, () => ({ text: 'noted {{last_user_text}}' })),
      ]),
      {
        match: { userIncludes: 'Your directive: DIRECTIVE-' },
        turnOffset: 1,
        turns: [{ text: 'Scope: checked my area.' }],
      },
    );
    const { handle } = await runCompleted(env, {
      prompt: `Review this project.\n${context}`,
      name: 'fork-root',
      limits: { forking: true },
    });
    const bodies = [1, 2, 3, 4, 5].map((index) => rawRequestsOf(`${handle.agentId}.${index}`)[0]!);
    for (const body of bodies) expect(body).toBeDefined();
    // Each directive block starts at the same byte offset, everything before it is byte-identical, and they differ after.
    const directiveStart = bodies.map((body) => body.indexOf('{"type":"text","text":"<fork-boilerplate>'));
    expect(new Set(directiveStart).size).toBe(1);
    expect(directiveStart[0]).toBeGreaterThan(context.length);
    expect(commonPrefixLength(bodies)).toBeGreaterThanOrEqual(directiveStart[0]!);
    expect(new Set(bodies).size).toBe(5);
    const parsed = bodies.map((body) => JSON.parse(body) as Body);
    const parentFirst = JSON.parse(rawRequestsOf(handle.agentId)[0]!) as Body;
    // The parent's exact system prompt bytes, tools and model.
    for (const body of parsed) {
      expect(JSON.stringify(body.system)).toBe(JSON.stringify(parentFirst.system));
      expect(body.tools!.map((tool) => tool.name)).toEqual(parentFirst.tools!.map((tool) => tool.name));
      expect(body.model).toBe(parentFirst.model);
      const last = lastUserBlocks(body);
      expect(last.slice(0, 5).map((block) => block.type)).toEqual(Array(5).fill('tool_result'));
      expect(new Set(last.slice(0, 5).map((block) => text(block))).size).toBe(1);
    }
    // Children read the parent's cached prefix.
    const forkUsages = env.modelServer
      .requests()
      .filter((request) => request.headers['x-subagents-agent-id']?.startsWith(`${handle.agentId}.`))
      .map((request) => request.usage as { cache_read_input_tokens: number });
    expect(forkUsages.every((usage) => usage.cache_read_input_tokens > 0)).toBe(true);
    await recordHistory(env.temporal.client, handle.agentId, 'fork-five');
    await recordHistory(env.temporal.client, `${handle.agentId}.1`, 'fork-five-child');
  });

  it('refuses a fork inside a fork; the child does the work itself', async () => {
    env.script(
      agentNamed('nested-fork-root', [
        {
          toolUses: [spawn('outer fork', 'OUTER-DIRECTIVE', { run_in_background: false })],
        },
        { text: 'root done: {{last_tool_result}}' },
      ]),
      {
        match: { userIncludes: 'Your directive: OUTER-DIRECTIVE' },
        turnOffset: 1,
        turns: [
          { toolUses: [spawn('inner fork', 'INNER')] },
          { toolUses: [{ name: 'Glob', input: { pattern: '*' } }] },
          { text: 'Scope: did it myself after {{last_tool_result}}' },
        ],
      },
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'nested fork test',
      name: 'nested-fork-root',
      limits: { forking: true },
    });
    const child = rawRequestsOf(`${handle.agentId}.1`).map((body) => JSON.parse(body) as Body);
    const refused = lastUserBlocks(child[1]!)[0]!;
    expect(refused.is_error).toBe(true);
    expect(text(refused)).toContain('ForkInsideFork');
    expect(result.finalText).toContain('Scope: did it myself');
    const inner = await env.temporal.client.workflow
      .getHandle(`${handle.agentId}.1.1`)
      .describe()
      .catch(() => undefined);
    expect(inner).toBeUndefined();
  });

  it("lets a fork Edit a file the parent read (copied read state); a named child's Edit without a Read is refused", async () => {
    await env.writeFiles({ 'shared.txt': 'alpha\n' });
    env.script(
      agentNamed('read-state-root', [
        { toolUses: [{ name: 'Read', input: { file_path: 'shared.txt' } }] },
        {
          toolUses: [
            spawn('fork editor', 'FORK-EDIT', { run_in_background: false }),
            spawn('named editor', 'NAMED-EDIT', { subagent_type: 'general-purpose' }),
          ],
        },
        { text: 'done' },
      ]),
      {
        match: { userIncludes: 'Your directive: FORK-EDIT' },
        turnOffset: 2,
        turns: [
          { toolUses: [{ name: 'Edit', input: { file_path: 'shared.txt', old_string: 'alpha', new_string: 'beta' } }] },
          { text: 'Scope: edited: {{last_tool_result}}' },
        ],
      },
      agentPrompted('NAMED-EDIT', [
        { toolUses: [{ name: 'Edit', input: { file_path: 'shared.txt', old_string: 'alpha', new_string: 'gamma' } }] },
        { text: 'named saw: {{last_tool_result}}' },
      ]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'read state test',
      name: 'read-state-root',
      limits: { forking: true },
    });
    const fork = rawRequestsOf(`${handle.agentId}.1`).map((body) => JSON.parse(body) as Body);
    expect(lastUserBlocks(fork[1]!)[0]!.is_error).toBeFalsy();
    const named = rawRequestsOf(`${handle.agentId}.2`).map((body) => JSON.parse(body) as Body);
    const refused = lastUserBlocks(named[1]!)[0]!;
    expect(refused.is_error).toBe(true);
    expect(text(refused)).toContain('FileNotRead');
    expect(readFileSync(path.join(env.workspace, 'shared.txt'), 'utf8')).toBe('beta\n');
  });
});
