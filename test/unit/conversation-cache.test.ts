import { describe, expect, it } from 'vitest';
import { ConversationCache, ConversationMismatchError } from '../../src/activities/conversation-cache';
import { conversationHash } from '../../src/shared/model/conversation-hash';
import type { MessageParam } from '../../src/shared/model/messages';

const conversation: MessageParam[] = [
  { role: 'user', content: 'one' },
  { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
  { role: 'user', content: 'three' },
];

function server(messages: MessageParam[]) {
  const calls: number[] = [];
  return {
    calls,
    fetch: async (from: number) => {
      calls.push(from);
      return { systemPrompt: 's', tools: ['Read'], messages: messages.slice(from), from, total: messages.length };
    },
  };
}

describe('ConversationCache', () => {
  it('fetches only messages it has not seen on the next turn', async () => {
    const cache = new ConversationCache();
    const source = server(conversation);
    const first = await cache.get('a', 1, conversationHash(conversation.slice(0, 1)), source.fetch);
    expect(first.messages).toHaveLength(1);
    const second = await cache.get('a', 3, conversationHash(conversation), source.fetch);
    expect(second.messages).toEqual(conversation);
    expect(source.calls).toEqual([0, 1]);
  });

  it('refetches everything once when the local copy is stale, then fails on a real mismatch', async () => {
    const cache = new ConversationCache();
    await cache.get(
      'a',
      1,
      conversationHash([{ role: 'user', content: 'other' }]),
      server([{ role: 'user', content: 'other' }]).fetch,
    );
    const source = server(conversation);
    const result = await cache.get('a', 3, conversationHash(conversation), source.fetch);
    expect(result.messages).toEqual(conversation);
    expect(source.calls).toEqual([1, 0]);
    await expect(cache.get('b', 3, 'ffff', server(conversation).fetch)).rejects.toBeInstanceOf(
      ConversationMismatchError,
    );
  });

  it('evicts the least recently used run past its capacity', async () => {
    const cache = new ConversationCache(1);
    const source = server(conversation);
    const hash = conversationHash(conversation);
    await cache.get('a', 3, hash, source.fetch);
    await cache.get('b', 3, hash, source.fetch);
    await cache.get('a', 3, hash, source.fetch);
    expect(source.calls).toEqual([0, 0, 0]);
  });

  it('appends the messages a call carries to what it holds, without a query', async () => {
    const cache = new ConversationCache();
    const source = server(conversation);
    await cache.get('a', 1, conversationHash(conversation.slice(0, 1)), source.fetch);
    const result = await cache.get('a', 3, conversationHash(conversation), source.fetch, {
      from: 1,
      messages: conversation.slice(1),
    });
    expect(result.messages).toEqual(conversation);
    expect(result.systemPrompt).toBe('s');
    expect(source.calls).toEqual([0]);
  });

  it('reads by query when the carried messages do not fit what it holds or do not match the hash', async () => {
    const fresh = server(conversation);
    // Nothing held (another worker served the previous call): the tail alone is not enough.
    await new ConversationCache().get('a', 3, conversationHash(conversation), fresh.fetch, {
      from: 1,
      messages: conversation.slice(1),
    });
    expect(fresh.calls).toEqual([0]);

    for (const tail of [
      { from: 2, messages: conversation.slice(2) }, // starts past what is held
      { from: 1, messages: [conversation[1]!, { role: 'user' as const, content: 'forged' }] }, // not the messages hashed
    ]) {
      const cache = new ConversationCache();
      const source = server(conversation);
      await cache.get('a', 1, conversationHash(conversation.slice(0, 1)), source.fetch);
      const result = await cache.get('a', 3, conversationHash(conversation), source.fetch, tail);
      expect(result.messages).toEqual(conversation);
      expect(source.calls).toEqual([0, 1]);
    }
  });
});
