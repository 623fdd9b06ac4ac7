/**
 * What waits for an agent's next turn boundary: task notifications of finished background children
 * and directed messages. Drained into the next user content, after any tool results.
 */
export class Inbox {
  private readonly items: string[] = [];

  pushNotification(text: string): void {
    this.items.push(text);
  }

  pushMessage(from: string, text: string): void {
    this.items.push(`<message from="${from}">\n${text}\n</message>`);
  }

  get size(): number {
    return this.items.length;
  }

  /** Everything queued, in arrival order; the inbox is empty afterwards. */
  drain(): string[] {
    return this.items.splice(0, this.items.length);
  }
}
