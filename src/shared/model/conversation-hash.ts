import type { MessageParam } from './messages';

const seedHash = '0000000000000000';

// Looked up once: each sandbox global lookup goes through an interceptor, costly in this per-character loop.
const imul = Math.imul;

/** 53-bit string hash (cyrb53), hex; deterministic, dependency-free, sandbox-safe. Not cryptographic. */
function hashString(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = imul(h1 ^ code, 2654435761);
    h2 = imul(h2 ^ code, 1597334677);
  }
  h1 = imul(h1 ^ (h1 >>> 16), 2246822507) ^ imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = imul(h2 ^ (h2 >>> 16), 2246822507) ^ imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/** Hash of a text (e.g. a system prompt a model call refers to without carrying it). */
export function textHash(text: string): string {
  return hashString(text);
}

/** Hash chain step: the hash of a conversation after appending one message. */
export function extendConversationHash(previous: string, message: MessageParam): string {
  return hashString(`${previous}|${JSON.stringify(message)}`);
}

/** Hash of a whole conversation (the same value the chain reaches step by step). */
export function conversationHash(messages: readonly MessageParam[]): string {
  return messages.reduce(extendConversationHash, seedHash);
}

/** Hash of an empty conversation. */
export const emptyConversationHash = seedHash;
