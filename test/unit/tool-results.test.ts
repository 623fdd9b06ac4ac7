import { describe, expect, it } from 'vitest';
import type { ToolUseBlock } from '../../src/shared/model/messages';
import { buildToolResultMessage, dropUnresolvedToolUses } from '../../src/shared/tools/tool-results';

const uses: ToolUseBlock[] = [
  { type: 'tool_use', id: 'a', name: 'Read', input: {} },
  { type: 'tool_use', id: 'b', name: 'Bash', input: {} },
];

describe('buildToolResultMessage', () => {
  it('answers every tool_use in order, synthesizing a result for a missing one, text after', () => {
    const message = buildToolResultMessage(uses, { a: { content: 'ok', isError: false } }, 'interrupted', [
      'steer: focus',
    ]);
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
        { type: 'tool_result', tool_use_id: 'b', content: 'interrupted', is_error: true },
        { type: 'text', text: 'steer: focus' },
      ],
    });
  });

  it('never sends an empty tool_result content', () => {
    const message = buildToolResultMessage(uses.slice(0, 1), { a: { content: '', isError: false } }, 'x');
    expect((message.content as { content: string }[])[0]!.content).toBe('(no output)');
  });
});

describe('dropUnresolvedToolUses', () => {
  it('removes trailing unanswered tool_uses and an emptied assistant message', () => {
    expect(
      dropUnresolvedToolUses([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: uses },
      ]),
    ).toEqual([{ role: 'user', content: 'hi' }]);
    expect(
      dropUnresolvedToolUses([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'let me look' }, ...uses] },
      ]),
    ).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'let me look' }] },
    ]);
  });
});
