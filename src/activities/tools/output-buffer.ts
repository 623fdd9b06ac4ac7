/** Bounded command output: keeps the head and the tail, counts what was dropped in between. */

export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private total = 0;

  /** Keeps at most `maxChars` characters in the final text (marker included). */
  constructor(private readonly maxChars: number) {}

  append(text: string): void {
    this.total += text.length;
    const headRoom = this.maxChars - this.head.length;
    if (headRoom > 0) {
      this.head += text.slice(0, headRoom);
      text = text.slice(headRoom);
    }
    if (text === '') return;
    this.tail += text;
    // Trim in large steps so appending stays linear.
    if (this.tail.length > 2 * this.maxChars) this.tail = this.tail.slice(-this.maxChars);
  }

  /** The last `maxChars` characters received (for live progress). */
  recent(maxChars: number): string {
    if (this.tail.length >= maxChars) return this.tail.slice(-maxChars);
    return (this.head + this.tail).slice(-maxChars);
  }

  get totalChars(): number {
    return this.total;
  }

  /** The whole output if it fits, else head + "... N characters omitted ..." + tail. */
  toString(): string {
    if (this.total <= this.maxChars) return this.head + this.tail;
    const markerFor = (omitted: number) => `\n\n... ${omitted} characters omitted ...\n\n`;
    // The marker's length depends on the count; the widest count is a safe bound.
    const room = this.maxChars - markerFor(this.total).length;
    const headChars = Math.ceil(room / 2);
    const tailChars = room - headChars;
    const omitted = this.total - headChars - tailChars;
    return this.head.slice(0, headChars) + markerFor(omitted) + (tailChars > 0 ? this.tail.slice(-tailChars) : '');
  }
}
