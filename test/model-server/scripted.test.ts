import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { parseScenario, ScenarioValidationError, type Scenario } from '../../src/model-server/scenario-schema';
import type { ModelServer } from '../../src/model-server/server';
import { clientFor, startTestServer } from './helpers';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(scenario: Scenario): Promise<void> {
  server = (await startTestServer({ behaviour: { kind: 'scripted', scenario } })).server;
}

const agent = (headers: Record<string, string> = {}): Anthropic => clientFor(server!, { headers });
const ask = (client: Anthropic, messages: Anthropic.MessageParam[], system?: string) =>
  client.messages.create({ model: 'claude-test-tiny', max_tokens: 512, messages, ...(system ? { system } : {}) });
const textOf = (message: Anthropic.Message): string =>
  message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
const toolUsesOf = (message: Anthropic.Message): Anthropic.ToolUseBlock[] =>
  message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');

const explorer: Scenario['agents'][number] = {
  match: { agentType: 'Explore' },
  turns: [
    {
      text: 'searching',
      toolUses: [
        { name: 'Grep', input: { pattern: 'TODO' } },
        { name: 'Read', input: { file_path: 'a.ts' } },
      ],
    },
    { text: 'Found: {{last_tool_result}} for {{agent_id}}' },
  ],
};

describe('scripted behaviour', () => {
  it('matches on headers, system text and user text; the first matching entry wins', async () => {
    await start({
      agents: [
        explorer,
        { match: { agentName: 'reviewer' }, turns: [{ text: 'by name' }] },
        { match: { agentId: 'root/child-3' }, turns: [{ text: 'by id' }] },
        { match: { systemIncludes: 'You are a planner' }, turns: [{ text: 'by system' }] },
        { match: { userIncludes: 'fork directive' }, turns: [{ text: 'by user text' }] },
        {
          match: { agentType: 'Explore', agentName: 'shadowed' },
          turns: [{ text: 'never: the first Explore entry wins' }],
        },
      ],
      default: [{ text: 'default reply' }],
    });
    const hello = [{ role: 'user' as const, content: 'hello' }];
    expect(
      textOf(await ask(agent({ 'x-subagents-agent-type': 'Explore', 'x-subagents-agent-name': 'shadowed' }), hello)),
    ).toBe('searching');
    expect(textOf(await ask(agent({ 'x-subagents-agent-name': 'reviewer' }), hello))).toBe('by name');
    expect(textOf(await ask(agent({ 'x-subagents-agent-id': 'root/child-3' }), hello))).toBe('by id');
    expect(textOf(await ask(agent(), hello, 'You are a planner. Plan.'))).toBe('by system');
    expect(
      textOf(
        await ask(agent(), [
          { role: 'user', content: 'history' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'the fork directive: go' },
        ]),
      ),
    ).toBe('[scenario exhausted: agents.4 has no turn 1]');
    expect(textOf(await ask(agent(), [{ role: 'user', content: 'the fork directive: go' }]))).toBe('by user text');
    expect(textOf(await ask(agent(), hello))).toBe('default reply');
  });

  it('picks the turn by the number of assistant messages, so a retry gets the same reply and ids', async () => {
    await start({ agents: [explorer] });
    const client = agent({ 'x-subagents-agent-type': 'Explore', 'x-subagents-agent-id': 'explore-1' });
    const first = await ask(client, [{ role: 'user', content: 'find TODOs' }]);
    expect(first.stop_reason).toBe('tool_use');
    const retried = await ask(client, [{ role: 'user', content: 'find TODOs' }]);
    expect(retried.content).toEqual(first.content);
    const [grep, read] = toolUsesOf(first);
    expect(grep).toMatchObject({ name: 'Grep', input: { pattern: 'TODO' } });
    expect(read).toMatchObject({ name: 'Read', input: { file_path: 'a.ts' } });
    expect(grep!.id).not.toBe(read!.id);
    const other = await ask(agent({ 'x-subagents-agent-type': 'Explore', 'x-subagents-agent-id': 'explore-2' }), [
      { role: 'user', content: 'find TODOs' },
    ]);
    expect(toolUsesOf(other)[0]!.id).not.toBe(grep!.id);

    const second = await ask(client, [
      { role: 'user', content: 'find TODOs' },
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: grep!.id, content: 'src/a.ts' },
          { type: 'tool_result', tool_use_id: read!.id, content: [{ type: 'text', text: '1\t// TODO: fix $& this' }] },
        ],
      },
    ]);
    expect(second.stop_reason).toBe('end_turn');
    expect(textOf(second)).toBe('Found: 1\t// TODO: fix $& this for explore-1');
    expect(server!.requests().map((logged) => [logged.agentKey, logged.turnIndex])).toEqual([
      ['explore-1', 0],
      ['explore-1', 0],
      ['explore-2', 0],
      ['explore-1', 1],
    ]);
  });

  it('says when an agent has run out of turns, or when nothing matched', async () => {
    await start({ agents: [{ match: { agentType: 'Plan' }, turns: [{ text: 'only turn' }] }] });
    const plan = agent({ 'x-subagents-agent-type': 'Plan', 'x-subagents-agent-id': 'plan-9' });
    const exhausted = await ask(plan, [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'only turn' },
      { role: 'user', content: 'b' },
    ]);
    expect(exhausted.stop_reason).toBe('end_turn');
    expect(textOf(exhausted)).toBe('[scenario exhausted: plan-9 has no turn 1]');
    expect(textOf(await ask(agent(), [{ role: 'user', content: 'a' }]))).toBe('[no scenario entry matched]');
  });

  /** An Agent tool input that uses every field, with `prompt` the one that varies. */
  const agentInput = (prompt: string) => ({
    description: 'Explore the repo',
    prompt,
    subagent_type: 'Explore',
    model: 'haiku',
    run_in_background: true,
    name: 'scout',
    isolation: 'worktree',
    cwd: '/tmp/x',
  });

  it('substitutes placeholders in tool inputs, honours explicit ids, stop reasons and any tool (Agent)', async () => {
    await start({
      agents: [
        {
          match: {},
          turns: [
            {
              toolUses: [
                {
                  name: 'Agent',
                  id: 'toolu_fixed',
                  input: agentInput('Look at: {{last_user_text}}'),
                },
              ],
              stopReason: 'pause_turn',
            },
          ],
        },
      ],
    });
    const message = await ask(agent(), [{ role: 'user', content: 'the src folder' }]);
    expect(message.stop_reason).toBe('pause_turn');
    expect(message.content).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_fixed',
        name: 'Agent',
        input: agentInput('Look at: the src folder'),
      },
    ]);
  });

  it("starts a fork child's turns after the history it inherits (turnOffset)", async () => {
    await start({
      agents: [{ match: { userIncludes: 'FORK DIRECTIVE' }, turnOffset: 1, turns: [{ text: 'fork turn 0' }] }],
    });
    const inherited: Anthropic.MessageParam[] = [
      { role: 'user', content: 'parent task' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_parent', name: 'Agent', input: { prompt: 'p' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_parent', content: 'Fork started' },
          { type: 'text', text: 'FORK DIRECTIVE: do part 1' },
        ],
      },
    ];
    expect(textOf(await ask(agent({ 'x-subagents-agent-id': 'fork-1' }), inherited))).toBe('fork turn 0');
    expect(server!.requests()[0]!.turnIndex).toBe(0);
  });

  it('waits delayMs before answering', async () => {
    await start({ agents: [], default: [{ text: 'late', delayMs: 250 }] });
    const started = Date.now();
    expect(textOf(await ask(agent(), [{ role: 'user', content: 'x' }]))).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });
});

describe('scenario validation', () => {
  it('names each problem by path', () => {
    const attempt = (value: unknown): string => {
      try {
        parseScenario(value);
      } catch (error) {
        expect(error).toBeInstanceOf(ScenarioValidationError);
        return (error as Error).message;
      }
      throw new Error('expected the scenario to be rejected');
    };
    expect(attempt({ agents: [{ match: {}, turns: [{}] }] })).toContain(
      'agents.0.turns.0: a turn needs text, toolUses, serverToolUses or thinking',
    );
    expect(attempt({ agents: [{ match: {}, turns: [{ text: 'x', tool_uses: [] }] }] })).toMatch(
      /agents\.0\.turns\.0: .*tool_uses/,
    );
    expect(attempt({ agents: [{ match: {}, turns: [{ text: 'x', fault: { kind: '503' } }] }] })).toContain(
      'agents.0.turns.0.fault.kind',
    );
    expect(attempt({})).toContain('agents');
  });

  it('rejects a bad behaviour given to setBehaviour', async () => {
    await start({ agents: [] });
    expect(() =>
      server!.setBehaviour({
        kind: 'scripted',
        scenario: { agents: [{ match: {}, turns: [{ toolUses: [{ name: '', input: {} }] }] }] },
      }),
    ).toThrow(/agents\.0\.turns\.0\.toolUses\.0\.name/);
  });
});
