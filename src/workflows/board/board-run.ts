import { ApplicationFailure, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type {
  BoardChangeResult,
  BoardConfig,
  BoardNotice,
  BoardSnapshot,
  BoardState,
  BoardWorkflowInput,
} from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';
import { boardNoticeSignal } from '../../shared/board/board';
import { ErrorType } from '../../shared/protocol/errors';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';
import { BoardDraft, countTasks, emptyBoard } from './board-draft';
import { expireClaims, nextExpiryMs, releaseOwner, renewClaims, type LostClaim } from './board-leases';
import type { BoardOutcome } from './board-tasks';

/** A board change as the pure functions take it. */
export type BoardChange = (state: BoardState, now: number) => BoardOutcome;

/** One run of a board: its state, the notices it owes, and when it must wake next. */
export class BoardRun {
  private state: BoardState;
  private readonly outbox: { to: string; notice: BoardNotice }[] = [];
  /** The expiry the loop's timer is set for (undefined: no timer). */
  armedFor?: number;
  /** Updates accepted in this run (the board continues-as-new well before Temporal's per-run limit). */
  updatesThisRun = 0;

  constructor(private readonly input: BoardWorkflowInput) {
    const config = sanitizedConfig(input?.config);
    this.state = input?.carried ? { config, ...input.carried } : emptyBoard(config);
    this.showDetails();
  }

  get boardId(): string {
    return this.state.config.boardId;
  }

  snapshot(): BoardSnapshot {
    return {
      ...this.state,
      counts: countTasks(this.state.tasks),
      atMs: workflowNowMs(),
      continuedRuns: this.input.continuedRuns ?? 0,
    };
  }

  /** Validator: throws the refusal, which Temporal returns to the caller (nothing is recorded). */
  check(change: BoardChange): void {
    const outcome = change(this.state, workflowNowMs());
    if (!outcome.ok) throw new Error(outcome.error);
  }

  /** Handler: applies an accepted change. A refusal here (never expected after validation) fails only the update. */
  apply(change: BoardChange): BoardChangeResult {
    const outcome = change(this.state, workflowNowMs());
    if (!outcome.ok)
      throw ApplicationFailure.create({
        type: ErrorType.InvalidBoardRequest,
        message: outcome.error,
        nonRetryable: true,
      });
    this.state = outcome.state;
    this.updatesThisRun += 1;
    this.owe(outcome.lost);
    this.showDetails();
    return outcome.result;
  }

  /** An agent's runtime renewed its claims (unless they already ran out). */
  heartbeat(agentId: string): void {
    this.edit((draft) => {
      const lost = expireClaims(draft);
      renewClaims(draft, agentId);
      return lost;
    });
  }

  /** An agent ended: what it held returns to pending. */
  ownerEnded(agentId: string, reason: string): void {
    this.edit((draft) => [...expireClaims(draft), ...releaseOwner(draft, agentId, reason)]);
  }

  /** Returns the claims that have run out (the loop's timer). */
  expireDue(): void {
    this.edit((draft) => expireClaims(draft));
  }

  private edit(body: (draft: BoardDraft) => LostClaim[]): void {
    const draft = new BoardDraft(this.state, workflowNowMs());
    const lost = body(draft);
    this.state = draft.finish();
    this.owe(lost);
    if (lost.length > 0) this.showDetails();
  }

  nextExpiry(): number | undefined {
    return nextExpiryMs(this.state.tasks);
  }

  /** True when the loop has something to do now: notices to send, or a claim running out before its timer. */
  needsLoop(): boolean {
    const next = this.nextExpiry();
    return this.outbox.length > 0 || (next !== undefined && (this.armedFor === undefined || next < this.armedFor));
  }

  get owesNotices(): boolean {
    return this.outbox.length > 0;
  }

  /** Sends the notices owed (best effort: an agent that is gone is skipped). */
  async deliverNotices(): Promise<void> {
    while (this.outbox.length > 0) {
      const { to, notice } = this.outbox.shift()!;
      await signalBestEffort(to, boardNoticeSignal, notice);
    }
  }

  carry(): BoardWorkflowInput {
    const { config, ...carried } = this.state;
    return { ...this.input, config, carried, continuedRuns: (this.input.continuedRuns ?? 0) + 1 };
  }

  /** Claims returned: each owner that still runs, and its tree's root, are told. */
  private owe(lost: LostClaim[]): void {
    const byOwner = new Map<string, LostClaim[]>();
    for (const claim of lost) {
      const key = `${claim.ownerAgentId ?? ''}\u0000${claim.rootAgentId ?? ''}\u0000${claim.ownerEnded}`;
      byOwner.set(key, [...(byOwner.get(key) ?? []), claim]);
    }
    for (const claims of byOwner.values()) {
      const first = claims[0]!;
      const notice: BoardNotice = {
        boardId: this.boardId,
        ...(first.ownerAgentId ? { ownerAgentId: first.ownerAgentId } : {}),
        taskIds: claims.map((claim) => claim.taskId),
        text: noticeText(this.boardId, claims),
      };
      const recipients = new Set<string>();
      if (first.ownerAgentId && !first.ownerEnded) recipients.add(first.ownerAgentId);
      if (first.rootAgentId) recipients.add(first.rootAgentId);
      for (const to of recipients) this.outbox.push({ to, notice });
    }
  }

  /** The board's current details in the Temporal UI: tasks per column. */
  private showDetails(): void {
    const counts = countTasks(this.state.tasks);
    setCurrentDetails(
      `**Task board** ${this.boardId} · lease ${this.state.config.leaseMs / 1000}s\n\n` +
        '| pending | in progress | blocked | completed |\n|---|---|---|---|\n' +
        `| ${counts.pending} (${counts.ready} ready, ${counts.waiting} waiting) | ${counts.in_progress} | ${counts.blocked} | ${counts.completed} |`,
    );
  }
}

/** The board's config from its (untrusted) input: its id is its workflow ID, its lease within the limits. */
function sanitizedConfig(config: Partial<BoardConfig> | undefined): BoardConfig {
  const lease =
    typeof config?.leaseMs === 'number' && Number.isFinite(config.leaseMs)
      ? config.leaseMs
      : boardLimits.defaultLeaseMs;
  const text = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value.slice(0, boardLimits.maxOwnerChars) : undefined;
  const name = text(config?.name);
  const rootAgentId = text(config?.rootAgentId);
  return {
    boardId: workflowInfo().workflowId,
    ...(name ? { name } : {}),
    ...(rootAgentId ? { rootAgentId } : {}),
    leaseMs: Math.min(boardLimits.maxLeaseMs, Math.max(boardLimits.minLeaseMs, Math.round(lease))),
  };
}

/** What an agent (or its root) is told when claims were returned to the board. */
export function noticeText(boardId: string, claims: readonly LostClaim[]): string {
  const lines = claims.map((claim) => `- task #${claim.taskId} "${claim.subject}": ${claim.reason}`);
  return (
    `<board-notice board="${boardId}">\nClaims were returned to the task board; these tasks are pending again and any agent may claim them:\n` +
    `${lines.join('\n')}\n</board-notice>`
  );
}
