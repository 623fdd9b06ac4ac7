import { describe, expect, it } from 'vitest';
import { inputLimits } from '../../src/shared/protocol/limits';
import { cancelNoticePrefix, noticeIn, reasonFor } from '../../src/shared/protocol/stop-notice-reason';
import { endMayComeAfterCancel } from '../../src/workflows/runtime/cancel-notice';

// The stop notice a cancellation request carries in its reason (src/workflows/runtime/cancel-notice.ts): what
// a stopping agent writes, and what a cancelled agent accepts from whoever sent the request.

describe('a stop notice in a cancellation reason', () => {
  it('reads back what a stopping agent writes', () => {
    const notice = { by: 'agent-1.2', reason: 'its parent was interrupted (ancestor agent-1 was stopped)' };
    expect(noticeIn(reasonFor(notice))).toEqual(notice);
  });

  it('finds the notice inside the words the server wraps an external cancellation in', () => {
    const wrapped = `Cancel requested by workflow with run id 01a2 with reason: ${reasonFor({ by: 'budget', reason: 'the tree used 1000 tokens' })}`;
    expect(noticeIn(wrapped)).toEqual({ by: 'budget', reason: 'the tree used 1000 tokens' });
  });

  it('reads back a whole-tree stop, and writes nothing for a stop of one agent', () => {
    const notice = { by: 'user', reason: 'done (ancestor agent-1 was stopped)', wholeTree: true };
    expect(noticeIn(reasonFor(notice))).toEqual(notice);
    expect(reasonFor({ by: 'user', reason: 'done', wholeTree: false })).toBe(reasonFor({ by: 'user', reason: 'done' }));
  });

  it('reads back the mark of a parent that has ended (its children send no partial result), alone or with the whole-tree mark', () => {
    for (const notice of [
      { by: 'agent-1', reason: 'its parent stopped it (ancestor agent-1.2 was stopped)', parentEnded: true },
      { by: 'user', reason: 'done (ancestor agent-1 was stopped)', wholeTree: true, parentEnded: true },
    ]) {
      expect(noticeIn(reasonFor(notice))).toEqual(notice);
    }
    expect(reasonFor({ by: 'user', reason: 'done', parentEnded: false })).toBe(
      reasonFor({ by: 'user', reason: 'done' }),
    );
  });

  it('keeps only who and why', () => {
    expect(noticeIn(`${cancelNoticePrefix}{"by":"ops","reason":"batch","extra":{"a":1}}`)).toEqual({
      by: 'ops',
      reason: 'batch',
    });
  });

  it.each([
    ['no reason', undefined],
    ['an empty reason', ''],
    ['a reason of its own', 'operator says stop'],
    ['the prefix alone', cancelNoticePrefix],
    ['JSON cut short', `${cancelNoticePrefix}{"by":"ops","reason":`],
    ['a JSON string', `${cancelNoticePrefix}"ops"`],
    ['null', `${cancelNoticePrefix}null`],
    ['an empty by', `${cancelNoticePrefix}{"by":"","reason":"x"}`],
    ['a by that is a number', `${cancelNoticePrefix}{"by":7,"reason":"x"}`],
    ['no reason field', `${cancelNoticePrefix}{"by":"ops"}`],
    [
      'a by over the id limit',
      `${cancelNoticePrefix}${JSON.stringify({ by: 'x'.repeat(inputLimits.maxIdChars + 1), reason: 'x' })}`,
    ],
    [
      'a reason over the text limit',
      `${cancelNoticePrefix}${JSON.stringify({ by: 'ops', reason: 'y'.repeat(inputLimits.maxShortTextChars + 1) })}`,
    ],
    ['text after the JSON', `${cancelNoticePrefix}{"by":"ops","reason":"x"} and more`],
    ['a whole-tree mark that is not true or false', `${cancelNoticePrefix}{"by":"ops","reason":"x","wholeTree":"yes"}`],
    [
      'an ended-parent mark that is not true or false',
      `${cancelNoticePrefix}{"by":"ops","reason":"x","parentEnded":1}`,
    ],
    [
      'an ended-parent mark that is null',
      `${cancelNoticePrefix}{"by":"ops","reason":"x","wholeTree":true,"parentEnded":null}`,
    ],
  ])('is no notice for %s', (_label, reason) => {
    expect(noticeIn(reason)).toBeUndefined();
  });
});

describe('which pending activity may still end after a stopped agent moved on', () => {
  it('one cancelled without waiting for its end (a model call, setup); not a tool, whose cancellation the turn waits for', () => {
    expect(endMayComeAfterCancel({ cancellationType: 0 })).toBe(true);
    expect(endMayComeAfterCancel({})).toBe(true);
    expect(endMayComeAfterCancel({ cancellationType: 1 })).toBe(false);
  });
});
