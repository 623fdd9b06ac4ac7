import { describe, expect, it } from 'vitest';
import { LiveText } from '../../src/activities/live-text';
import { lastLines, liveLimits, parseLiveDetails } from '../../src/shared/protocol/live-activity';

const textDelta = (text: string) =>
  ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }) as never;

describe('LiveText', () => {
  it('keeps only the tail of a long stream and counts every character', () => {
    const live = new LiveText(3);
    for (let index = 0; index < 1000; index++) live.onEvent(textDelta(`${String(index).padStart(4, '0')} `));
    const details = live.details;
    expect(details.text.length).toBe(liveLimits.textTailChars);
    expect(details.text.endsWith('0999 ')).toBe(true);
    expect(details.textChars).toBe(5000);
    expect(details).toMatchObject({ kind: 'model', turn: 3, events: 1000 });
  });

  it('names the tool whose tool_use block is streaming, and forgets it at the next block', () => {
    const live = new LiveText(0);
    live.onEvent({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 't', name: 'Bash', input: {} },
    } as never);
    expect(live.details.tool).toBe('Bash');
    live.onEvent({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } } as never);
    expect(live.details.tool).toBeUndefined();
  });
});

describe('live details helpers', () => {
  it('lastLines drops blank lines and cuts long ones', () => {
    expect(lastLines('a\n\nb\r\nc\n', 2)).toEqual(['b', 'c']);
    expect(lastLines('x'.repeat(500), 1, 10)).toEqual([`${'x'.repeat(9)}…`]);
  });

  it('parseLiveDetails ignores what is not live details', () => {
    for (const value of [
      null,
      undefined,
      3,
      'text',
      { turn: 1 },
      { kind: 'model', text: 5, turn: 1 },
      { kind: 'tool' },
    ])
      expect(parseLiveDetails(value)).toBeUndefined();
    expect(parseLiveDetails({ kind: 'tool', tool: 'Bash', lines: ['a'] })).toEqual({
      kind: 'tool',
      tool: 'Bash',
      lines: ['a'],
    });
  });
});
