import type { CarriedAgentState } from '../../shared/agents/agent';

/** What an agent's hooks left behind (docs/hooks.md): written only by src/workflows/tools/hooks.ts, carried across runs. */
export class HookRecord {
  /** The latest non-blocking hook errors and messages, for `status`. */
  private latestNotices: string[];
  /** Times in a row a Stop/SubagentStop hook kept the agent going. */
  private continuations: number;
  /** A hook answered `continue: false` in this turn: the agent stops after it, with this reason. */
  private stopReason?: string;
  /** The `once` handlers that ran (hookIdentity): carried, so `once` holds for the session, not one run. */
  private readonly onceRan: Set<string>;

  constructor(carried: Pick<CarriedAgentState, 'hookNotices' | 'stopHookContinuations' | 'onceHooksRan'> | undefined) {
    this.continuations = carried?.stopHookContinuations ?? 0;
    this.latestNotices = [...(carried?.hookNotices ?? [])];
    this.onceRan = new Set(carried?.onceHooksRan ?? []);
  }

  get notices(): readonly string[] {
    return this.latestNotices;
  }

  get stop(): string | undefined {
    return this.stopReason;
  }

  get stopContinuations(): number {
    return this.continuations;
  }

  /** A non-blocking hook error or a hook's message, kept for `status` (the latest 5). */
  recordNotice(notice: string): void {
    this.latestNotices = [...this.latestNotices, notice.slice(0, 500)].slice(-5);
  }

  /** A hook answered `continue: false`; the first reason of the turn is kept. */
  noteStop(reason: string): void {
    this.stopReason ??= reason;
  }

  /** The agent stopped for a hook's `continue: false`: forgets it; true when there was one. */
  clearStop(): boolean {
    if (this.stopReason === undefined) return false;
    this.stopReason = undefined;
    return true;
  }

  /** Whether a `once` handler (by its hookIdentity) already ran in this session. */
  ranOnce(identity: string): boolean {
    return this.onceRan.has(identity);
  }

  /** A `once` handler ran: it is gone for the rest of the session. */
  markRanOnce(identity: string): void {
    this.onceRan.add(identity);
  }

  /** A new session begins (a resumed root, as Claude Code's `--resume`): its `once` handlers may run again. */
  beginSession(): void {
    this.onceRan.clear();
  }

  countStopContinuation(): void {
    this.continuations += 1;
  }

  resetStopContinuations(): void {
    this.continuations = 0;
  }

  /** What continue-as-new carries (the fields of CarriedAgentState, in their order). */
  carry(): Pick<CarriedAgentState, 'hookNotices' | 'stopHookContinuations' | 'onceHooksRan'> {
    return {
      ...(this.continuations > 0 ? { stopHookContinuations: this.continuations } : {}),
      ...(this.latestNotices.length > 0 ? { hookNotices: this.latestNotices } : {}),
      ...(this.onceRan.size > 0 ? { onceHooksRan: [...this.onceRan] } : {}),
    };
  }
}
