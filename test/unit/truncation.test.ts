import { describe, expect, it } from 'vitest';
import type { ContentBlock, MessageParam } from '../../src/shared/model/messages';
import { continuationPrompt, continuedText, decideCutOffTurn } from '../../src/workflows/context/truncation';

const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
const continuation: MessageParam = { role: 'user', content: [{ type: 'text', text: continuationPrompt }] };
const task: MessageParam = { role: 'user', content: [{ type: 'text', text: 'write the report' }] };

describe('decideCutOffTurn', () => {
  it('refuses every tool call of a cut turn, telling the model to split the work', () => {
    const content: ContentBlock[] = [
      { type: 'text', text: 'Writing it.' },
      { type: 'tool_use', id: 't1', name: 'Write', input: { file_path: 'a', content: 'half' } },
    ];
    const decision = decideCutOffTurn([task, { role: 'assistant', content }], content, 32000);
    expect(decision.type).toBe('refuse_tools');
    if (decision.type === 'refuse_tools') {
      expect(decision.text).toContain('max_tokens 32000');
      expect(decision.text).toContain('nothing was executed');
      expect(decision.text).toContain('Split the work');
    }
  });

  it('continues a cut final answer, at most three times in a row, then gives up with the whole text', () => {
    const messages: MessageParam[] = [task, assistant('Part one, ')];
    expect(decideCutOffTurn(messages, [{ type: 'text', text: 'Part one, ' }], 100)).toEqual({ type: 'continue' });
    messages.push(
      continuation,
      assistant('part two, '),
      continuation,
      assistant('part three, '),
      continuation,
      assistant('part four'),
    );
    expect(decideCutOffTurn(messages, [{ type: 'text', text: 'part four' }], 100)).toEqual({
      type: 'give_up',
      text: 'Part one, part two, part three, part four',
    });
  });

  it('gives up at once on an empty cut response (nothing to continue)', () => {
    expect(decideCutOffTurn([task], [], 1)).toEqual({ type: 'give_up', text: '' });
  });
});

describe('continuedText', () => {
  it('joins the answer across continuation requests, and is the plain text otherwise', () => {
    expect(continuedText([task, assistant('only')], 'only', true)).toBe('only');
    expect(continuedText([task, assistant('Hello '), continuation, assistant('world')], 'world', true)).toBe(
      'Hello world',
    );
    expect(continuedText([task, assistant('Hello '), continuation], '', false)).toBe('Hello ');
    // A user message that merely mentions continuing is not a continuation request.
    expect(
      continuedText([task, assistant('A'), { role: 'user', content: 'please continue' }, assistant('B')], 'B', true),
    ).toBe('B');
  });
});
