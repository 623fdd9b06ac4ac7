import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../../src/shared/model/messages';
import { conversationHashOf } from '../../../src/shared/rewind/turns';
import { Conversation } from '../../../src/workflows/context/conversation';
import { answer, label, prompt, toolCall, toolResult } from './fixtures';

const record = {
  trigger: 'auto' as const,
  preTokens: 900,
  postTokens: 200,
  summarisedMessages: 3,
  keptMessages: 2,
  turn: 2,
  atMs: 0,
};

/** A boundary as the turn log records it: where the conversation is, and what it holds. */
interface Mark {
  epoch: number;
  logLength: number;
  messages: MessageParam[];
  hash: string;
}
const mark = (conversation: Conversation): Mark => ({
  ...conversation.position,
  messages: [...conversation.messages],
  hash: conversation.hash,
});

/** The opening, then `turns` tool turns (call + result each). */
function conversationWith(turns: number): { conversation: Conversation; marks: Mark[] } {
  const conversation = new Conversation();
  conversation.append(prompt('Fix the failing test'));
  const marks = [mark(conversation)];
  for (let turn = 1; turn <= turns; turn++) {
    conversation.append(toolCall(`t${turn}`));
    conversation.append(toolResult(`t${turn}`, `output ${turn}`));
    marks.push(mark(conversation));
  }
  return { conversation, marks };
}

function expectConsistent(conversation: Conversation): void {
  expect(conversation.hash).toBe(conversationHashOf(conversation.messages));
  for (let count = 0; count <= conversation.messages.length; count++)
    expect(conversation.hashAt(count), `hashAt(${count})`).toBe(
      conversationHashOf(conversation.messages.slice(0, count)),
    );
}

function expectRebuilds(conversation: Conversation, marks: readonly Mark[]): void {
  for (const [turn, found] of marks.entries()) {
    const rebuilt = conversation.projectionAt(found.epoch, found.logLength);
    expect(rebuilt, `turn ${turn}`).toEqual(found.messages);
    expect(conversationHashOf(rebuilt!), `turn ${turn}`).toBe(found.hash);
  }
}

describe('Conversation.projectionAt', () => {
  it('rebuilds the conversation at each boundary after appends', () => {
    const { conversation, marks } = conversationWith(3);
    expect(marks.map((found) => found.logLength)).toEqual([1, 3, 5, 7]);
    expect(marks.every((found) => found.epoch === 0)).toBe(true);
    expectRebuilds(conversation, marks);
  });

  it('rebuilds the boundaries of carried messages (a run after continue-as-new)', () => {
    const carried = [prompt('go'), toolCall('t1'), toolResult('t1')];
    const conversation = new Conversation(carried);
    expect(conversation.position).toEqual({ epoch: 0, logLength: 3 });
    expect(conversation.projectionAt(0, 3)).toEqual(carried);
    expect(conversation.transcript(0).carriedCount).toBe(3);
  });

  it('refuses positions it cannot rebuild: unknown epoch, past the log, before the epoch began', () => {
    const { conversation } = conversationWith(2);
    expect(conversation.projectionAt(1, 3)).toBeUndefined();
    expect(conversation.projectionAt(-1, 3)).toBeUndefined();
    expect(conversation.projectionAt(0, 6)).toBeUndefined();
    conversation.truncateTo(3);
    // The new epoch began at log length 5: a length before that is the old epoch's.
    expect(conversation.projectionAt(1, 4)).toBeUndefined();
    expect(conversation.projectionAt(1, 5)?.map(label)).toEqual(['Fix the failing test', 'use:t1', 'result:t1']);
  });

  it('rebuilds boundaries before and after a compaction, the summarised messages included', () => {
    const { conversation, marks } = conversationWith(3);
    const summary = prompt('SUMMARY of turns 1-2');
    conversation.compact(summary, 5, record);
    expect(conversation.position).toEqual({ epoch: 1, logLength: 8 });
    expect(conversation.messages.map(label)).toEqual(['SUMMARY of turns 1-2', 'use:t3', 'result:t3']);
    const afterCompaction = mark(conversation);
    conversation.append(answer('done'));
    const answered = mark(conversation);
    expectRebuilds(conversation, [...marks, afterCompaction, answered]);
    expectConsistent(conversation);
  });
});

describe('Conversation.truncateTo (a rewind within the run)', () => {
  it('returns the conversation to its first messages, with the hash chain of exactly those', () => {
    const { conversation, marks } = conversationWith(3);
    conversation.truncateTo(marks[1]!.messages.length);
    expect(conversation.messages).toEqual(marks[1]!.messages);
    expect(conversation.hash).toBe(marks[1]!.hash);
    expectConsistent(conversation);
  });

  it('keeps hashes consistent when the branch goes on, and tails line up with the new messages', () => {
    const { conversation, marks } = conversationWith(3);
    conversation.truncateTo(3);
    conversation.append(toolCall('t2b'));
    conversation.append(toolResult('t2b', 'other output'));
    expectConsistent(conversation);
    expect(conversation.tailSince(3, marks[1]!.hash, 1_000_000)?.messages.map(label)).toEqual([
      'use:t2b',
      'result:t2b',
    ]);
    // The abandoned branch's hash no longer matches at its length.
    expect(conversation.tailSince(5, marks[2]!.hash, 1_000_000)).toBeUndefined();
  });

  it('opens a new epoch, and every earlier boundary still rebuilds', () => {
    const { conversation, marks } = conversationWith(3);
    conversation.truncateTo(3);
    expect(conversation.position).toEqual({ epoch: 1, logLength: 7 });
    conversation.append(toolCall('t2b'));
    conversation.append(toolResult('t2b'));
    const branched = mark(conversation);
    expect(branched).toMatchObject({ epoch: 1, logLength: 9 });
    expectRebuilds(conversation, [...marks, branched]);
  });

  it('keeps the abandoned messages in the transcript log; `current` points at the kept ones, then the new', () => {
    const { conversation } = conversationWith(3);
    conversation.truncateTo(3);
    let page = conversation.transcript(0);
    expect(page.total).toBe(7);
    expect(page.messages.map(label)).toEqual([
      'Fix the failing test',
      'use:t1',
      'result:t1',
      'use:t2',
      'result:t2',
      'use:t3',
      'result:t3',
    ]);
    expect(page.current).toEqual([0, 1, 2]);
    conversation.append(toolCall('t2b'));
    page = conversation.transcript(0);
    expect(page.current).toEqual([0, 1, 2, 7]);
    expect(page.current.map((index) => page.messages[index]!)).toEqual(conversation.messages);
  });

  it('truncates to the opening (turn 0) and to nothing', () => {
    const { conversation, marks } = conversationWith(2);
    conversation.truncateTo(1);
    expect(conversation.messages).toEqual(marks[0]!.messages);
    expect(conversation.transcript(0).current).toEqual([0]);
    conversation.truncateTo(0);
    expect(conversation.messages).toEqual([]);
    expect(conversation.transcript(0).current).toEqual([]);
    expectConsistent(conversation);
    expectRebuilds(conversation, marks);
  });

  it('after a compaction keeps the summary and kept messages by their log indices', () => {
    const { conversation } = conversationWith(3);
    conversation.compact(prompt('SUMMARY'), 5, record);
    conversation.append(toolCall('t4'));
    conversation.append(toolResult('t4'));
    const compacted = mark(conversation);
    conversation.append(toolCall('t5'));
    conversation.append(toolResult('t5'));
    conversation.truncateTo(compacted.messages.length);
    expect(conversation.messages).toEqual(compacted.messages);
    // Summary (log 7), kept t3 call and result (log 5, 6), then t4 (log 8, 9).
    expect(conversation.transcript(0).current).toEqual([7, 5, 6, 8, 9]);
    expectConsistent(conversation);
    const page = conversation.transcript(0);
    expect(page.current.map((index) => page.messages[index]!)).toEqual(conversation.messages);
  });

  it('twice in a row, each from where the previous one left', () => {
    const { conversation, marks } = conversationWith(3);
    conversation.truncateTo(5);
    conversation.append(toolCall('t3b'));
    conversation.append(toolResult('t3b'));
    const second = mark(conversation);
    conversation.truncateTo(3);
    expect(conversation.position.epoch).toBe(2);
    expect(conversation.transcript(0).current).toEqual([0, 1, 2]);
    expectConsistent(conversation);
    expectRebuilds(conversation, [...marks, second]);
  });
});

describe('Conversation.replaceWith (a rewind to an earlier run)', () => {
  it('becomes the given messages, appended to the log, with their hash chain; the old ones stay in the log', () => {
    const { conversation, marks } = conversationWith(2);
    const fetched = [prompt('Fix the failing test'), toolCall('t1'), toolResult('t1', 'output 1')];
    conversation.replaceWith(fetched);
    expect(conversation.messages).toEqual(fetched);
    expect(conversation.hash).toBe(conversationHashOf(fetched));
    expectConsistent(conversation);
    const page = conversation.transcript(0);
    expect(page.total).toBe(8);
    expect(page.current).toEqual([5, 6, 7]);
    expect(conversation.position).toEqual({ epoch: 1, logLength: 8 });
    expect(conversation.projectionAt(1, 8)).toEqual(fetched);
    expectRebuilds(conversation, marks);
  });

  it('with no messages leaves an empty conversation', () => {
    const { conversation } = conversationWith(1);
    conversation.replaceWith([]);
    expect(conversation.messages).toEqual([]);
    expect(conversation.transcript(0).current).toEqual([]);
    expectConsistent(conversation);
  });
});
