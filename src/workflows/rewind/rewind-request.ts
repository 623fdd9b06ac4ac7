import type { RewindAck, RewindInput } from '../../shared/rewind/rewind-protocol';
import type { TurnBoundary } from '../../shared/rewind/turns';
import type { TurnCheckpoint } from '../../shared/workspace/checkpoints';

/** A rewind the loop carries out at its next boundary, and its answer to the update. */
export interface PendingRewind {
  request: RewindInput & { by: string };
  /** Asked by the agent's own Rewind call: boundary and checkpoint are looked up when it is carried out. */
  fromTool?: boolean;
  boundary: TurnBoundary;
  checkpoint?: TurnCheckpoint;
  ack?: RewindAck;
  error?: string;
}

/** The rewind asked of a running agent (docs/rewind.md); rewinding.ts carries it out. */
export class RewindRequest {
  private pending?: PendingRewind;

  /** True while a rewind waits to be carried out. */
  get requested(): boolean {
    return this.pending !== undefined && this.pending.ack === undefined && this.pending.error === undefined;
  }

  get current(): PendingRewind | undefined {
    return this.pending;
  }

  ask(pending: PendingRewind): void {
    this.pending = pending;
  }
}
