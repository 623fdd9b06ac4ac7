import type { CompactionRecord } from '../../shared/model/compaction';
import { estimateMessageTokens, utf8Length } from '../../shared/model/context-estimate';
import { emptyConversationHash, extendConversationHash } from '../../shared/model/conversation-hash';
import type { MessageParam } from '../../shared/model/messages';
import type { ConversationTail } from '../../shared/model/model-call';
import {
  transcriptPageChars,
  type RunTranscriptSlice,
  type TranscriptBoundary,
  type TranscriptCopy,
  type TranscriptRewind,
} from '../../shared/protocol/run-transcript';

/** An agent's conversation with per-message hashes, sizes and the run's transcript log (docs/architecture.md). */
export class Conversation {
  readonly messages: MessageParam[] = [];
  private hashes: string[] = [emptyConversationHash];
  private tokens: number[] = [];
  private bytes: number[] = [];
  private logIndices: number[] = [];
  private readonly log: MessageParam[] = [];
  private readonly boundaries: TranscriptBoundary[] = [];
  /** Log stretches that repeat an earlier run's messages (a rewind to its boundary), so the joined transcript shows them once. */
  private readonly copies: TranscriptCopy[] = [];
  /** Where in the log the conversation went back to a turn (docs/rewind.md). */
  private readonly rewinds: TranscriptRewind[] = [];
  private readonly carriedCount: number;
  /** Each projection this run had (its start, each compaction, each rewind): log indices it began with, then appends from startLog. */
  private readonly epochs: { base: number[]; startLog: number }[] = [{ base: [], startLog: 0 }];

  constructor(carried: readonly MessageParam[] = []) {
    for (const message of carried) this.append(message);
    this.carriedCount = carried.length;
  }

  /** Appends a message (recorded in the log too) and extends the hash chain. */
  append(message: MessageParam): void {
    this.log.push(message);
    this.push(message, this.log.length - 1);
  }

  private push(message: MessageParam, logIndex: number): void {
    this.messages.push(message);
    this.hashes.push(extendConversationHash(this.hashes[this.hashes.length - 1]!, message));
    this.tokens.push(estimateMessageTokens(message));
    this.bytes.push(utf8Length(JSON.stringify(message)));
    this.logIndices.push(logIndex);
  }

  get hash(): string {
    return this.hashes[this.messages.length]!;
  }

  hashAt(count: number): string {
    return this.hashes[count]!;
  }

  /** Estimated tokens of messages [from, to). */
  tokensOf(from = 0, to = this.messages.length): number {
    let sum = 0;
    for (let index = from; index < to; index++) sum += this.tokens[index]!;
    return sum;
  }

  /** The messages after the first `count`, if those still hash to `hash` and the new ones fit `maxBytes`. */
  tailSince(count: number, hash: string, maxBytes: number): ConversationTail | undefined {
    if (count > this.messages.length || this.hashes[count] !== hash) return undefined;
    let bytes = 0;
    for (let index = count; index < this.messages.length; index++) bytes += this.bytes[index]!;
    return bytes <= maxBytes ? { from: count, messages: this.messages.slice(count) } : undefined;
  }

  /** JSON bytes of the whole conversation (what continue-as-new carries). */
  get byteCount(): number {
    return this.bytes.reduce((sum, value) => sum + value, 0);
  }

  /** Compaction: the conversation becomes `opening` plus messages [keptFrom, end); the log keeps everything. */
  compact(opening: MessageParam, keptFrom: number, record: CompactionRecord): void {
    const kept = this.messages.slice(keptFrom);
    const keptIndices = this.logIndices.slice(keptFrom);
    const lastIndexBefore = this.log.length - 1;
    this.log.push(opening);
    this.boundaries.push({ summaryIndex: this.log.length - 1, keptIndices, lastIndexBefore, record });
    this.epochs.push({ base: [this.log.length - 1, ...keptIndices], startLog: this.log.length });
    this.messages.length = 0;
    this.hashes = [emptyConversationHash];
    this.tokens = [];
    this.bytes = [];
    this.logIndices = [];
    this.push(opening, this.log.length - 1);
    kept.forEach((message, index) => this.push(message, keptIndices[index]!));
  }

  /** The current projection's number in this run and the log's length: with them `projectionAt` rebuilds today's messages later. */
  get position(): { epoch: number; logLength: number } {
    return { epoch: this.epochs.length - 1, logLength: this.log.length };
  }

  /** The messages the model saw at an earlier position of this run (a turn boundary), from the log. */
  projectionAt(epoch: number, logLength: number): MessageParam[] | undefined {
    return this.projectionIndicesAt(epoch, logLength)?.map((index) => this.log[index]!);
  }

  /** The log indices of the messages the model saw at an earlier position of this run. */
  projectionIndicesAt(epoch: number, logLength: number): number[] | undefined {
    const found = this.epochs[epoch];
    if (!found || logLength > this.log.length || logLength < found.startLog) return undefined;
    const appended = Array.from({ length: logLength - found.startLog }, (_, offset) => found.startLog + offset);
    return [...found.base, ...appended];
  }

  /** Rewind (docs/rewind.md): the conversation becomes its first `count` messages; the log keeps the abandoned ones. */
  truncateTo(count: number): void {
    const base = this.logIndices.slice(0, count);
    this.epochs.push({ base, startLog: this.log.length });
    this.rebuild(
      base.map((index) => this.log[index]!),
      base,
    );
  }

  /** Rewind to an earlier position of this run (another epoch): its messages by their log indices, nothing copied. */
  returnTo(epoch: number, logLength: number): boolean {
    const base = this.projectionIndicesAt(epoch, logLength);
    if (!base) return false;
    this.epochs.push({ base, startLog: this.log.length });
    this.rebuild(
      base.map((index) => this.log[index]!),
      base,
    );
    return true;
  }

  /**
   * Rewind to a boundary of an earlier run: the conversation becomes `messages`, appended to the log. With `copiedFrom`
   * (that run's log index of each message) the transcript joins them to the earlier run's and shows them once.
   */
  replaceWith(messages: readonly MessageParam[], copiedFrom?: { runId: string; logIndices: readonly number[] }): void {
    if (copiedFrom && copiedFrom.logIndices.length === messages.length && messages.length > 0)
      this.copies.push({ from: this.log.length, runId: copiedFrom.runId, logIndices: [...copiedFrom.logIndices] });
    this.epochs.push({ base: [], startLog: this.log.length });
    this.rebuild([], []);
    for (const message of messages) this.append(message);
  }

  /** Notes in the log that the conversation goes back to `turn` here (before it is cut back), for the transcript. */
  markRewind(turn: number, by?: string): void {
    this.rewinds.push({ turn, lastIndex: this.log.length - 1, ...(by !== undefined ? { by } : {}) });
  }

  private rebuild(messages: MessageParam[], indices: number[]): void {
    this.messages.length = 0;
    this.hashes = [emptyConversationHash];
    this.tokens = [];
    this.bytes = [];
    this.logIndices = [];
    messages.forEach((message, index) => this.push(message, indices[index]!));
  }

  /** A page of this run's transcript log, from `from` (the `transcript` query). */
  transcript(from: number): RunTranscriptSlice {
    const messages: MessageParam[] = [];
    let chars = 0;
    for (let index = from; index < this.log.length; index++) {
      const size = JSON.stringify(this.log[index]).length;
      if (messages.length > 0 && chars + size > transcriptPageChars) break;
      messages.push(this.log[index]!);
      chars += size;
    }
    return {
      messages,
      from,
      total: this.log.length,
      carriedCount: this.carriedCount,
      boundaries: this.boundaries,
      current: [...this.logIndices],
      ...(this.copies.length > 0 ? { copies: this.copies } : {}),
      ...(this.rewinds.length > 0 ? { rewinds: this.rewinds } : {}),
    };
  }
}
