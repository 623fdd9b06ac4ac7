import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { AgentResult, AgentStatus } from '../../shared/agents/agent';
import { childFinalSignal } from '../../shared/protocol/definitions';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { StopReason } from '../../shared/model/messages';
import type { WorktreeInfo, WorktreeOutcome } from '../../shared/workspace/worktree';
import type { AgentParts } from './agent-parts';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';
import type { Interruption } from './turn-control';
import { activityPendingAtCancel } from '../runtime/cancel-notice';
import { abortsRunning } from '../runtime/local-abort';
import { stopNoticeOnItsWay, waitForStopNotice } from '../tree/stop-delivery';
import { finishWorktreeOn } from '../tools/workspace-activities';
import { releaseAhead } from '../budget/model-budget';
import { sessionEnd, stopFailure, worktreeRemoved } from '../tools/hook-events';
import { hooksMayRun } from '../tools/hooks';

/** How an agent run ends: subtree stopped first, claims given back, worktree cleaned up (docs/architecture.md). */
export class Ending {
  constructor(private readonly agent: AgentParts) {}

  /** Records the result of the run; a later step (worktree cleanup) may amend it. */
  finish(status: AgentStatus, finalText: string, extra: Partial<AgentResult> = {}): AgentResult {
    const { input, state, inbox, progress } = this.agent;
    // From here on, messages and steering are kept as undelivered (cleanUp puts them into the result).
    inbox.seal();
    const result: AgentResult = {
      agentId: input.agentId,
      agentType: input.agentType,
      status,
      finalText,
      usage: state.usage,
      toolUses: state.toolUses,
      turns: state.turn,
      durationMs: workflowNowMs() - state.startedAtMs,
      model: input.model,
      treeUsage: state.treeUsage,
      ...extra,
    };
    progress.finish(result);
    return result;
  }

  async completed(text: string, stopReason: StopReason): Promise<AgentResult> {
    this.finish('completed', text, { stopReason });
    return this.cleanUp();
  }

  /** A valid StructuredOutput call (docs/tools.md): completed with the object, its JSON as the final text. */
  async structured(value: unknown): Promise<AgentResult> {
    await this.stopChildren(this.agent.input.agentId, 'its parent gave its final answer');
    this.finish('completed', JSON.stringify(value), { structured: value, stopReason: 'tool_use' });
    return this.cleanUp();
  }

  async maxTurns(lastStopReason: StopReason | undefined): Promise<AgentResult> {
    const { input, state } = this.agent;
    await this.stopChildren(input.agentId, `its parent reached its limit of ${input.maxTurns} turns`);
    this.finish('max_turns', state.lastAssistantText(), {
      error: errorText(ErrorType.MaxTurnsExceeded, `reached the limit of ${input.maxTurns} turns before finishing.`),
      stopReason: lastStopReason,
    });
    return this.cleanUp();
  }

  async interrupted(interruption: Interruption): Promise<AgentResult> {
    const { input, state } = this.agent;
    await this.stopChildren(input.agentId, 'its parent was interrupted');
    this.finish('interrupted', state.lastAssistantText(), {
      error: `interrupted by ${interruption.by}: ${interruption.reason}`,
    });
    return this.cleanUp();
  }

  /** The answer stayed cut at max_tokens after the allowed continuations (src/workflows/context/truncation.ts). */
  async truncated(text: string): Promise<AgentResult> {
    await this.stopChildren(this.agent.input.agentId, 'its answer was cut off at the output limit');
    this.finish('truncated', text, { stopReason: 'max_tokens' });
    return this.cleanUp();
  }

  async refused(text: string): Promise<AgentResult> {
    await this.stopChildren(this.agent.input.agentId, 'its parent refused the task');
    this.finish('refused', text, { stopReason: 'refusal' });
    return this.cleanUp();
  }

  /** A cap of its subtree was reached and the tree's action is `finish` (docs/budgets.md): it ends with what it has. */
  async budgetReached(reason: string): Promise<AgentResult> {
    const { input, state } = this.agent;
    await this.stopChildren('budget', `${reason} (ancestor ${input.agentId} reached it)`);
    this.finish('cancelled', state.lastAssistantText(), { error: `stopped by budget: ${reason}` });
    return this.cleanUp();
  }

  /** A model error Temporal gave up on: the workflow fails, with the partial result in the failure's details. */
  async failed(error: string): Promise<never> {
    const { input, state } = this.agent;
    await this.stopChildren(input.agentId, 'its parent failed');
    // StopFailure hooks (docs/hooks.md) hear of it; they cannot change it.
    if (hooksMayRun(this.agent, 'StopFailure')) await stopFailure(this.agent, error);
    this.finish('failed', state.lastAssistantText(), { error });
    const result = await this.cleanUp();
    throw ApplicationFailure.create({
      type: ErrorType.AgentFailed,
      message: error,
      nonRetryable: true,
      details: [result],
    });
  }

  /** The run threw: a stop ends it cancelled after its subtree has closed, and the error goes on. */
  async stopped(error: unknown): Promise<unknown> {
    if (!isCancellation(error)) return error;
    const { input, state, control, progress } = this.agent;
    if (stopNoticeOnItsWay(control, input.parentAgentId !== undefined)) await waitForStopNotice(control);
    const notice = control.stopNoticeOrDefault();
    const stopped = this.finish('cancelled', state.lastAssistantText(), {
      error: `stopped by ${notice.by}: ${notice.reason}`,
    });
    await CancellationScope.nonCancellable(async () => {
      // Its result is written, so it takes no partial result from the children it stops.
      const parentEnded = this.agent.children.anyRunning();
      await this.stopChildren(
        notice.by,
        `${notice.reason} (ancestor ${input.agentId} was stopped)`,
        notice.wholeTree === true,
        parentEnded,
      );
      await this.cleanUp();
      // A parent that stopped this agent as part of its own stop has ended too: it reads no report.
      if (input.parentAgentId && (notice.parentEnded !== true || activityPendingAtCancel())) {
        await signalBestEffort(input.parentAgentId, childFinalSignal, progress.current.result ?? stopped);
      }
    });
    return error;
  }

  /** Stops this agent's children and waits for them to close; a root's ending stops and finishes its whole tree. */
  private async stopChildren(by: string, reason: string, wholeTree = false, parentEnded = false): Promise<void> {
    const coordinator = this.agent.tree.coordinator;
    await this.agent.children.stopAll(by, reason, { wholeTree: wholeTree || coordinator !== undefined, parentEnded });
    coordinator?.finishRunning(workflowNowMs());
  }

  /** Worktree cleanup and the last word on the result, with every message or steer that came too late. */
  private async cleanUp(): Promise<AgentResult> {
    const { input, state, progress, inbox, board } = this.agent;
    // A cancelled turn's abort of its running calls (src/workflows/runtime/local-abort.ts) runs to its end first.
    const aborts = abortsRunning();
    if (aborts) await aborts;
    // Room asked ahead for a call that will not come goes back; a root's ledger hears from the calls a stop cut.
    await releaseAhead(this.agent);
    await this.agent.tree.ledger?.settle();
    let result = progress.current.result!;
    await board.release(result.status);
    const worktree = state.worktree;
    if (worktree?.madeBy === 'hook') result = { ...result, worktree: await this.releaseHookWorktree(worktree) };
    else if (worktree) {
      const outcome = await CancellationScope.nonCancellable(() =>
        finishWorktreeOn(input.workspaceWorker, { worktree }),
      );
      result = { ...result, worktree: outcome };
      if (!outcome.kept) state.leaveRemovedWorktree();
      if (!outcome.kept && hooksMayRun(this.agent, 'WorktreeRemove'))
        await CancellationScope.nonCancellable(() => worktreeRemoved(this.agent, outcome.path));
    }
    // A root's SessionEnd hooks (docs/hooks.md): its session is over; a stop does not cut them short.
    if (input.parentAgentId === undefined && hooksMayRun(this.agent, 'SessionEnd'))
      await CancellationScope.nonCancellable(() =>
        sessionEnd(this.agent, input.interactive && inbox.inputEnded ? 'prompt_input_exit' : 'other'),
      );
    const undelivered = inbox.seal();
    if (undelivered.length > 0) result = { ...result, undelivered: [...undelivered] };
    progress.amendResult(result);
    return result;
  }

  /** A WorktreeCreate hook's directory goes to the WorktreeRemove hooks (git has no part in it); with none it is kept. */
  private async releaseHookWorktree(worktree: WorktreeInfo): Promise<WorktreeOutcome> {
    const outcome = { path: worktree.path, branch: '', changedFiles: [], commits: [], madeBy: 'hook' as const };
    if (!hooksMayRun(this.agent, 'WorktreeRemove')) return { kept: true, ...outcome };
    // They run in the agent's original cwd: the directory they remove is not theirs to stand in.
    this.agent.state.leaveRemovedWorktree();
    await CancellationScope.nonCancellable(() => worktreeRemoved(this.agent, worktree.path));
    return { kept: false, ...outcome };
  }
}
