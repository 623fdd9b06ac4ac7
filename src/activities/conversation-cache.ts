import { extendConversationHash, emptyConversationHash } from '../shared/model/conversation-hash';
import type { MessageParam, ToolDefinition } from '../shared/model/messages';
import { setRecent } from '../project/recent-map';
import type { ConversationSlice, ConversationTail } from '../shared/model/model-call';

/** What the worker remembers of one agent run's conversation, so each turn fetches only new messages. */
interface CachedConversation {
  messages: MessageParam[];
  /** hashes[i] = conversation hash after i messages. */
  hashes: string[];
  systemPrompt: string;
  tools: string[];
  extraTools?: ToolDefinition[];
}

/** No messages yet: the hash chain at its start. */
const emptyMessages: Pick<CachedConversation, 'messages' | 'hashes'> = {
  messages: [],
  hashes: [emptyConversationHash],
};

/** `base` with `messages` appended, each extending the hash chain. */
function withMessages<Entry extends Pick<CachedConversation, 'messages' | 'hashes'>>(
  base: Entry,
  messages: readonly MessageParam[],
): Entry {
  const hashes = [...base.hashes];
  for (const message of messages) hashes.push(extendConversationHash(hashes[hashes.length - 1]!, message));
  return { ...base, messages: [...base.messages, ...messages], hashes };
}

/** Fetches messages from index `from` (by workflow query). */
export type FetchConversation = (from: number) => Promise<ConversationSlice>;

/** Thrown when what the workflow served does not match the hash it sent. */
export class ConversationMismatchError extends Error {
  override name = 'ConversationMismatch';
}

/** Conversations by workflow run; what the worker lacks is read by query, so a message lands in history once. */
export class ConversationCache {
  private readonly entries = new Map<string, CachedConversation>();

  constructor(private readonly capacity = 256) {}

  async get(
    key: string,
    count: number,
    expectedHash: string,
    fetch: FetchConversation,
    tail?: ConversationTail,
  ): Promise<CachedConversation> {
    const cached = this.entries.get(key);
    // The new messages came with the call and this worker holds the ones before them: no query.
    const appended = cached && tail ? this.appendTail(cached, count, tail) : undefined;
    if (appended?.hashes[count] === expectedHash) return this.remember(key, appended);
    // A prefix of what is cached (a compaction summarises the first messages): served without a fetch.
    if (cached && cached.messages.length > count && cached.hashes[count] === expectedHash) {
      return { ...cached, messages: cached.messages.slice(0, count), hashes: cached.hashes.slice(0, count + 1) };
    }
    const usable = cached && cached.messages.length <= count ? cached : undefined;
    const entry = await this.extend(usable, count, fetch);
    if (entry.hashes[count] !== expectedHash) {
      // A stale local copy (e.g. after a resume under the same run) is dropped and fetched whole once.
      const fresh = usable ? await this.extend(undefined, count, fetch) : entry;
      if (fresh.hashes[count] !== expectedHash) {
        throw new ConversationMismatchError(
          `The workflow served ${fresh.messages.length} messages whose hash does not match the model call's input (${expectedHash}).`,
        );
      }
      return this.remember(key, fresh);
    }
    return this.remember(key, entry);
  }

  /** True when this worker holds anything of the run. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Starts a run's entry with no messages yet (its first call's tail brings them), from a system prompt this worker rendered. */
  open(key: string, opening: Pick<CachedConversation, 'systemPrompt' | 'tools'>): void {
    if (!this.entries.has(key))
      this.remember(key, { ...emptyMessages, systemPrompt: opening.systemPrompt, tools: opening.tools });
  }

  /** `cached` followed by `tail`, when `tail` starts where `cached` ends and brings it to `count` messages. */
  private appendTail(
    cached: CachedConversation,
    count: number,
    tail: ConversationTail,
  ): CachedConversation | undefined {
    if (tail.from !== cached.messages.length || tail.from + tail.messages.length !== count) return undefined;
    return withMessages(cached, tail.messages);
  }

  private async extend(
    base: CachedConversation | undefined,
    count: number,
    fetch: FetchConversation,
  ): Promise<CachedConversation> {
    const from = base?.messages.length ?? 0;
    const slice = await fetch(from);
    const { messages, hashes } = base ?? emptyMessages;
    const start = {
      messages,
      hashes,
      systemPrompt: slice.systemPrompt,
      tools: slice.tools,
      ...(slice.extraTools ? { extraTools: slice.extraTools } : {}),
    };
    return withMessages(start, slice.messages.slice(0, count - from));
  }

  private remember(key: string, entry: CachedConversation): CachedConversation {
    return setRecent(this.entries, key, entry, this.capacity);
  }
}
