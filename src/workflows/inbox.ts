/** Something waiting for an agent's next turn boundary. */
export interface InboxItem {
  kind: 'notification' | 'message' | 'steer';
  text: string;
}

/**
 * What waits for an agent's next turn boundary: task notifications of finished background children,
 * directed messages and steering. Drained into the next user content, after any tool results, so
 * the message structure stays valid.
 */
export class Inbox {
  private readonly items: InboxItem[] = [];
  /** Drained into the conversation but not yet seen by the model (no model call since). */
  private unsent: InboxItem[] = [];

  pushNotification(text: string): void {
    this.items.push({ kind: 'notification', text });
  }

  pushMessage(from: string, text: string): void {
    this.items.push({ kind: 'message', text: `<message from="${from}">\n${text}\n</message>` });
  }

  pushSteer(by: string, text: string): void {
    this.items.push({ kind: 'steer', text: `<steering from="${by}">\n${text}\n</steering>` });
  }

  /** Everything still queued (continue-as-new carries it to the next run). */
  pending(): InboxItem[] {
    return [...this.items];
  }

  restore(items: readonly InboxItem[]): void {
    this.items.push(...items);
  }

  get size(): number {
    return this.items.length;
  }

  /** Everything queued, in arrival order, as the texts to deliver; the inbox is empty afterwards. */
  drain(): string[] {
    const drained = this.items.splice(0, this.items.length);
    this.unsent.push(...drained);
    return drained.map((item) => item.text);
  }

  /** A model call is about to read the conversation: what was drained is now delivered. */
  markSent(): void {
    this.unsent = [];
  }

  /** Messages and steering the model never saw (the agent ended first); notifications are dropped. */
  drainUndelivered(): string[] {
    const left = [...this.unsent, ...this.items.splice(0, this.items.length)];
    this.unsent = [];
    return left.filter((item) => item.kind !== 'notification').map((item) => item.text);
  }
}
