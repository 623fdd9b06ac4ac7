import type { InboxItem } from '../../shared/agents/agent';

/** What waits for the next turn boundary, drained after any tool results; kept as undelivered once finished. */
export class Inbox {
  private readonly items: InboxItem[] = [];
  /** Drained into the conversation but not yet seen by the model (no model call since). */
  private unsent: InboxItem[] = [];
  /** Set when the agent finished: texts that will never reach it. */
  private undelivered?: string[];
  /** An interactive agent was told no more messages will come (the close signal). */
  private ended = false;

  constructor(carried: readonly InboxItem[] = []) {
    this.items.push(...carried);
  }

  pushNotification(text: string): void {
    this.items.push({ kind: 'notification', text });
  }

  pushMessage(from: string, text: string): void {
    if (this.undelivered) this.undelivered.push(text);
    else this.items.push({ kind: 'message', text: `<message from="${from}">\n${text}\n</message>`, from, body: text });
  }

  pushSteer(by: string, text: string): void {
    if (this.undelivered) this.undelivered.push(text);
    else
      this.items.push({ kind: 'steer', text: `<steering from="${by}">\n${text}\n</steering>`, from: by, body: text });
  }

  /** No more messages will come: an interactive agent ends after its current turn. */
  endInput(): void {
    this.ended = true;
  }

  get inputEnded(): boolean {
    return this.ended;
  }

  /** Everything still queued (continue-as-new carries it to the next run). */
  pending(): InboxItem[] {
    return [...this.items];
  }

  get size(): number {
    return this.items.length;
  }

  /** Everything queued, in arrival order, as the texts to deliver; the inbox is empty afterwards. */
  drain(): string[] {
    return this.drainItems().map((item) => item.text);
  }

  /** Everything queued, as it came (for UserPromptSubmit hooks); the inbox is empty afterwards. */
  drainItems(): InboxItem[] {
    const drained = this.items.splice(0, this.items.length);
    this.unsent.push(...drained);
    return drained;
  }

  /** Everything queued, as it came; the inbox is empty afterwards (a script run forwards it, src/workflows/scripts). */
  takeAll(): InboxItem[] {
    return this.items.splice(0, this.items.length);
  }

  /** A model call is about to read the conversation: what was drained is now delivered. */
  markSent(): void {
    this.unsent = [];
  }

  /** The agent has finished: the messages and steering the model never saw, a list that keeps growing. */
  seal(): string[] {
    if (this.undelivered) return this.undelivered;
    const left = [...this.unsent, ...this.items.splice(0, this.items.length)];
    this.unsent = [];
    this.undelivered = left.filter((item) => item.kind !== 'notification').map((item) => item.text);
    return this.undelivered;
  }
}
