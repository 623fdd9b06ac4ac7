/** A run's agents running at once (docs/workflows.md): calls past the limit wait their turn, first come first served. */
export class AgentSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves when the caller may start its agent; resolution order is call order, so replay starts the same ones. */
  acquire(): Promise<void> {
    if (this.running < this.limit) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The caller's agent ended: the next waiting call takes its slot. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
