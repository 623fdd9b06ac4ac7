import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/shared/model/messages';
import { buildForkedMessages, forkPlaceholderResult, isForkConversation } from '../../src/workflows/tree/fork';

const history: MessageParam[] = [
  { role: 'user', content: 'task' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'forking' },
      { type: 'tool_use', id: 'a', name: 'Agent', input: { prompt: 'one' } },
      { type: 'tool_use', id: 'b', name: 'Read', input: { file_path: 'x' } },
    ],
  },
];

describe('buildForkedMessages', () => {
  it('keeps the whole assistant message and answers every tool_use with the same placeholder, directive last', () => {
    const messages = buildForkedMessages(history, 'do part one');
    expect(messages.slice(0, 2)).toEqual(history);
    const last = messages[2]!;
    expect(last.role).toBe('user');
    const blocks = last.content as { type: string; tool_use_id?: string; content?: string; text?: string }[];
    expect(blocks.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(blocks.slice(0, 2).map((block) => [block.tool_use_id, block.content])).toEqual([
      ['a', forkPlaceholderResult],
      ['b', forkPlaceholderResult],
    ]);
    expect(blocks[2]!.text).toMatch(
      /<fork-boilerplate>[\s\S]*Do not start subagents[\s\S]*<\/fork-boilerplate>\n\nYour directive: do part one$/,
    );
  });

  it('differs between siblings only in the directive', () => {
    const one = JSON.stringify(buildForkedMessages(history, 'one'));
    const two = JSON.stringify(buildForkedMessages(history, 'two'));
    const prefix = one.slice(0, one.indexOf('Your directive:'));
    expect(two.startsWith(prefix)).toBe(true);
    expect(one).not.toBe(two);
  });

  it('refuses a conversation that does not end with an assistant message', () => {
    expect(() => buildForkedMessages([{ role: 'user', content: 'x' }], 'd')).toThrow(/assistant message/);
  });

  it('recognises a fork by the marker in its history', () => {
    expect(isForkConversation(history)).toBe(false);
    expect(isForkConversation(buildForkedMessages(history, 'x'))).toBe(true);
  });
});
