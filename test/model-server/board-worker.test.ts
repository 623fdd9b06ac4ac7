import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTaskList } from '../../src/model-server/board-worker';
import { parseScenario } from '../../src/model-server/scenario-schema';
import type { ModelServer } from '../../src/model-server/server';
import { clientFor, startTestServer } from './helpers';

let server: ModelServer;
let client: Anthropic;
beforeAll(async () => {
  server = (
    await startTestServer({
      behaviour: {
        kind: 'scripted',
        scenario: {
          agents: [
            {
              match: {},
              boardWorker: { workCommand: 'work {{task}} as {{agent_id}}', pollDelayMs: 0, maxIdlePolls: 2 },
            },
          ],
        },
      },
    })
  ).server;
  client = clientFor(server, { headers: { 'x-subagents-agent-id': 'root.3' } });
});
afterAll(async () => {
  await server?.close();
});

type Step = { name: string; input: Record<string, unknown>; result: string; isError?: boolean };

/** A conversation where the worker made `steps` (one tool call per turn), and what it does next. */
async function next(steps: Step[][]): Promise<Anthropic.Message> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Work the board.' }];
  steps.forEach((calls, turn) => {
    const id = (index: number) => `t${turn}_${index}`;
    const uses = calls.map(({ name, input }, index) => ({ type: 'tool_use' as const, id: id(index), name, input }));
    const results = calls.map(({ result, isError }, index) => ({
      type: 'tool_result' as const,
      tool_use_id: id(index),
      content: result,
      ...(isError ? { is_error: true } : {}),
    }));
    messages.push({ role: 'assistant', content: uses }, { role: 'user', content: results });
  });
  return client.messages.create({ model: 'claude-test-tiny', max_tokens: 256, messages });
}
const calls = (message: Anthropic.Message) =>
  message.content.flatMap((block) => (block.type === 'tool_use' ? [{ name: block.name, input: block.input }] : []));
const text = (message: Anthropic.Message) =>
  message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

const list = (result: string): Step => ({ name: 'TaskList', input: {}, result });
const board = [
  'Task board b: ...',
  '#1 [completed] a (x)',
  '#2 [pending] b (bob)',
  '#3 [pending] c [blocked by #2]',
  '#4 [pending] d',
  '#5 [pending] e',
].join('\n');
const claim4: Step = {
  name: 'TaskUpdate',
  input: { taskId: '4', status: 'in_progress' },
  result: 'Updated task #4 status, owner',
};

describe('the boardWorker scripted agent', () => {
  it('reads which tasks it may claim from a TaskList result', () => {
    expect(parseTaskList(board).map((task) => [task.id, task.claimable])).toEqual([
      ['1', false],
      ['2', false],
      ['3', false],
      ['4', true],
      ['5', true],
    ]);
    expect(parseTaskList('#7 [blocked] x — needs input')).toEqual([{ id: '7', status: 'blocked', claimable: false }]);
  });

  it('lists, claims the lowest free task, works on it, completes it and lists again', async () => {
    expect(calls(await next([]))).toEqual([{ name: 'TaskList', input: {} }]);
    expect(calls(await next([[list(board)]]))).toEqual([
      { name: 'TaskUpdate', input: { taskId: '4', status: 'in_progress' } },
    ]);
    expect(calls(await next([[list(board)], [claim4]]))).toEqual([
      { name: 'Bash', input: { command: 'work 4 as root.3', description: 'work on task #4' } },
    ]);
    expect(calls(await next([[list(board)], [claim4], [{ name: 'Bash', input: {}, result: '' }]]))).toEqual([
      { name: 'TaskUpdate', input: { taskId: '4', status: 'completed', note: 'done by root.3' } },
      { name: 'TaskList', input: {} },
    ]);
  });

  it('looks again when its claim is refused, and finishes when every task is completed', async () => {
    expect(calls(await next([[list(board)], [{ ...claim4, result: 'TaskClaimed: ...', isError: true }]]))).toEqual([
      { name: 'TaskList', input: {} },
    ]);
    const done = await next([
      [list(board)],
      [claim4],
      [{ name: 'Bash', input: {}, result: '' }],
      [
        { ...claim4, input: { taskId: '4', status: 'completed' } },
        list('#1 [completed] a (x)\n#4 [completed] d (root.3)'),
      ],
    ]);
    expect(done.stop_reason).toBe('end_turn');
    expect(text(done)).toBe('Every task on the board is completed. I completed: #4.');
  });

  it('polls while nothing is free, and stops after maxIdlePolls fruitless lists', async () => {
    const busy = list('#1 [in_progress] a (bob)');
    expect(calls(await next([[busy]]))).toEqual([{ name: 'TaskList', input: {} }]);
    expect(text(await next([[busy], [busy]]))).toBe('I stopped waiting for work. I completed: none.');
  });

  it('takes either turns or a boardWorker per agent entry, not both', () => {
    expect(() => parseScenario({ agents: [{ match: {}, turns: [{ text: 'x' }], boardWorker: {} }] })).toThrow(
      /exactly one of turns or boardWorker/,
    );
    expect(() => parseScenario({ agents: [{ match: {} }] })).toThrow(/exactly one of turns or boardWorker/);
    expect(() => parseScenario({ agents: [{ match: {}, boardWorker: { pollDelay: 1 } }] })).toThrow(/pollDelay/);
  });
});
