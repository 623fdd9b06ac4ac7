import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { StopNotice } from '../../shared/protocol/definitions';

/** Who interrupted a turn, and why. */
export interface Interruption {
  by: string;
  reason: string;
}

/** The agent's own abort domains, lifetime (stop) and turn (interrupt), remembering who did it (docs/architecture.md). */
export class TurnControl {
  /** The workflow's root scope: cancelled when the agent is stopped. */
  private readonly lifetime = CancellationScope.current();
  private currentTurn?: CancellationScope;
  private interruption?: Interruption;
  private notice?: StopNotice;
  /** The scope of a run that may stop itself (a root at its tree's budget). */
  private ownLifetime?: CancellationScope;
  private stoppedWithin = false;

  /** Runs the agent's life in a scope it can cancel itself: a stop from within ends the run like a stop from outside. */
  async runStoppable<T>(body: () => Promise<T>): Promise<T> {
    this.ownLifetime = new CancellationScope();
    return this.ownLifetime.run(body);
  }

  /** Stops the agent from within (with this notice), as `stop` would; false when the run cannot stop itself. */
  stopFromWithin(notice: StopNotice): boolean {
    if (!this.ownLifetime || this.stoppedWithin) return false;
    this.notice = notice;
    this.stoppedWithin = true;
    this.ownLifetime.cancel();
    return true;
  }

  /** The run was stopped from within (it returns its result instead of ending cancelled). */
  get stoppedFromWithin(): boolean {
    return this.stoppedWithin;
  }

  /** Runs one turn in its own scope; an interrupt is wrapped up by `onInterrupt`, any other failure propagates. */
  async runTurn<T>(body: () => Promise<T>, onInterrupt: (interruption: Interruption) => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    this.currentTurn = scope;
    try {
      return await scope.run(body);
    } catch (error) {
      const interruption = this.interruptionOf(error);
      if (!interruption) throw error;
      return await onInterrupt(interruption);
    } finally {
      this.currentTurn = undefined;
      this.interruption = undefined;
    }
  }

  /** True while a turn (model call and tools) runs. */
  get inTurn(): boolean {
    return this.currentTurn !== undefined;
  }

  /** Cancels the current turn, if one runs (the agent stays). */
  interrupt(interruption: Interruption): void {
    if (!this.currentTurn) return;
    this.interruption = interruption;
    this.currentTurn.cancel();
  }

  /** The interruption a turn failed with, or undefined when the error is anything else (a stop included). */
  private interruptionOf(error: unknown): Interruption | undefined {
    if (!isCancellation(error) || !this.interruption || this.lifetime.consideredCancelled) return undefined;
    return this.interruption;
  }

  /** Remembers who is about to stop the agent (the stopNotice signal comes just before the cancellation). */
  noteStop(notice: StopNotice): void {
    this.notice = notice;
  }

  /** Stops the agent from inside (the stall watchdog): as a stop from outside would, with `notice` as who and why. */
  stopSelf(notice: StopNotice): void {
    this.notice = notice;
    this.lifetime.cancel();
  }

  /** Who stopped the agent, when a stop notice arrived. */
  get stopNotice(): StopNotice | undefined {
    return this.notice;
  }

  /** Who stopped the agent, as far as it knows: a cancellation without a notice came from outside the tree's tools. */
  stopNoticeOrDefault(): StopNotice {
    return this.notice ?? { by: 'a cancellation request', reason: 'the workflow was cancelled' };
  }
}
