import { describe, expect, it } from 'vitest';
import {
  conversationHash,
  emptyConversationHash,
  extendConversationHash,
} from '../../../src/shared/model/conversation-hash';
import type { MessageParam } from '../../../src/shared/model/messages';
import {
  checkpointAsOf,
  conversationHashOf,
  endsWithAnswer,
  findBoundary,
  lastTurn,
  latestCheckpoint,
} from '../../../src/shared/rewind/turns';
import { answer, boundaries, boundary, checkpoint, prompt, toolCall, toolResult } from './fixtures';

describe('findBoundary', () => {
  const list = boundaries(4);

  it('finds the boundary of a turn that exists, 0 (the opening) and the last included', () => {
    expect(findBoundary(list, 0, 'agent-1')).toBe(list[0]);
    expect(findBoundary(list, 2, 'agent-1')).toBe(list[2]);
    expect(findBoundary(list, 4, 'agent-1')).toBe(list[4]);
  });

  it.each([-1, -0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'refuses turn %s with the range of whole numbers to give',
    (turn) => {
      const found = findBoundary(list, turn, 'agent-1');
      expect(typeof found).toBe('string');
      expect(found).toContain('whole number from 0 (the opening) to 4');
      expect(found).toContain(`got ${turn}`);
    },
  );

  it('refuses a turn past the last with the turns the agent has', () => {
    expect(findBoundary(list, 5, 'agent-1')).toBe('agent agent-1 has turns 0 to 4; there is no turn 5.');
    expect(findBoundary(list, Number.MAX_SAFE_INTEGER, 'agent-1')).toMatch(/has turns 0 to 4; there is no turn/);
  });

  it('refuses a turn missing between others (a list with a gap), naming the range', () => {
    const gapped = [boundary(0), boundary(1), boundary(3)];
    expect(findBoundary(gapped, 2, 'agent-1')).toBe('agent agent-1 has turns 0 to 3; there is no turn 2.');
    expect(findBoundary(gapped, 3, 'agent-1')).toBe(gapped[2]);
  });

  it('says an agent without boundaries has none recorded, and why that may be', () => {
    const message = findBoundary([], 0, 'agent-9');
    expect(message).toBe(
      'agent agent-9 has no turn boundaries recorded (it started before turn checkpoints existed, or has not started).',
    );
    expect(findBoundary([], 3, 'agent-9')).toBe(message);
  });

  it('does not name a range "0 to -1" for a bad turn of an agent without boundaries', () => {
    // lastTurn([]) is -1: the range in the message must not be built from it.
    const message = findBoundary([], -1, 'agent-9');
    expect(typeof message).toBe('string');
    expect(message).not.toContain('to -1');
  });

  it('numbers the last turn -1 for an empty list', () => {
    expect(lastTurn([])).toBe(-1);
    expect(lastTurn(list)).toBe(4);
  });
});

describe('checkpointAsOf', () => {
  it('is the latest checkpoint at or before the turn', () => {
    const list = boundaries(6, { 0: checkpoint(0), 2: checkpoint(2), 5: checkpoint(5) });
    expect(checkpointAsOf(list, 0)?.turn).toBe(0);
    expect(checkpointAsOf(list, 1)?.turn).toBe(0);
    expect(checkpointAsOf(list, 2)?.turn).toBe(2);
    expect(checkpointAsOf(list, 4)?.turn).toBe(2);
    expect(checkpointAsOf(list, 5)?.turn).toBe(5);
    expect(checkpointAsOf(list, 6)?.turn).toBe(5);
  });

  it('is undefined without any checkpoint, and for an empty list', () => {
    expect(checkpointAsOf(boundaries(3), 2)).toBeUndefined();
    expect(checkpointAsOf([], 0)).toBeUndefined();
  });

  it('takes a later baseline for the turn right before it (nothing was written before it)', () => {
    const baseline = checkpoint(2, { baseline: true });
    const list = boundaries(4, { 2: baseline, 3: checkpoint(3) });
    expect(checkpointAsOf(list, 1)).toBe(baseline);
    expect(checkpointAsOf(list, 2)).toBe(baseline);
    expect(checkpointAsOf(list, 3)?.turn).toBe(3);
  });

  it('takes a later baseline for every earlier turn, also those two or more turns before it', () => {
    // The agent read for turns 1 and 2 and first wrote in turn 3: the baseline sits on boundary 2
    // (checkpoint-turn.ts, checkpointBeforeFirstWrite) and stands for boundaries 0 and 1 too.
    const baseline = checkpoint(2, { baseline: true });
    const list = boundaries(4, { 2: baseline, 3: checkpoint(3) });
    expect(checkpointAsOf(list, 0)).toBe(baseline);
  });

  it('does not take a later checkpoint that is not a baseline: the files before it are unknown', () => {
    const list = boundaries(4, { 2: checkpoint(2), 3: checkpoint(3) });
    expect(checkpointAsOf(list, 1)).toBeUndefined();
    expect(checkpointAsOf(list, 0)).toBeUndefined();
  });

  it('prefers a checkpoint at or before the turn to a later baseline', () => {
    const list = boundaries(3, { 0: checkpoint(0), 2: checkpoint(2, { baseline: true }) });
    expect(checkpointAsOf(list, 1)?.turn).toBe(0);
  });
});

describe('latestCheckpoint', () => {
  it('is the last checkpoint of the list, whatever turn it sits on', () => {
    expect(latestCheckpoint(boundaries(5, { 1: checkpoint(1), 3: checkpoint(3) }))?.turn).toBe(3);
    expect(latestCheckpoint(boundaries(2, { 2: checkpoint(2, { baseline: true }) }))?.baseline).toBe(true);
  });

  it('is undefined without checkpoints', () => {
    expect(latestCheckpoint([])).toBeUndefined();
    expect(latestCheckpoint(boundaries(3))).toBeUndefined();
  });
});

describe('endsWithAnswer', () => {
  it('is true after an assistant answer, as text blocks or a plain string', () => {
    expect(endsWithAnswer([prompt('go'), answer('done')])).toBe(true);
    expect(endsWithAnswer([prompt('go'), { role: 'assistant', content: 'done' }])).toBe(true);
    expect(endsWithAnswer([prompt('go'), { role: 'assistant', content: [] }])).toBe(true);
  });

  it('is false after an assistant message that calls a tool, even with text before the call', () => {
    expect(endsWithAnswer([prompt('go'), toolCall('t1')])).toBe(false);
    expect(endsWithAnswer([prompt('go'), toolCall('t1', 'Bash', 'Let me look.')])).toBe(false);
  });

  it('is false when a user message is last (the opening, tool results, a new prompt) and for no messages', () => {
    expect(endsWithAnswer([prompt('go')])).toBe(false);
    expect(endsWithAnswer([prompt('go'), toolCall('t1'), toolResult('t1')])).toBe(false);
    expect(endsWithAnswer([prompt('go'), answer('done'), prompt('and now?')])).toBe(false);
    expect(endsWithAnswer([])).toBe(false);
  });
});

describe('conversationHashOf', () => {
  const messages: MessageParam[] = [prompt('go'), toolCall('t1', 'Bash', 'look'), toolResult('t1'), answer('done')];

  it('is the model hash chain, step by step and whole', () => {
    let chained = emptyConversationHash;
    for (const message of messages) chained = extendConversationHash(chained, message);
    expect(conversationHashOf(messages)).toBe(chained);
    expect(conversationHashOf(messages)).toBe(conversationHash(messages));
  });

  it('is the empty hash for no messages', () => {
    expect(conversationHashOf([])).toBe(emptyConversationHash);
  });

  it('changes with any message, and with their order', () => {
    const seen = new Set(messages.map((_, count) => conversationHashOf(messages.slice(0, count + 1))));
    expect(seen.size).toBe(messages.length);
    expect(conversationHashOf([answer('a'), answer('b')])).not.toBe(conversationHashOf([answer('b'), answer('a')]));
    expect(conversationHashOf([answer('done ')])).not.toBe(conversationHashOf([answer('done')]));
  });
});
