import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentWorkflowInput, CarriedBoardClaims } from '../../shared/agents/agent';
import {
  agentBoardId,
  boardHeartbeatSignal,
  boardOwnerEndedSignal,
  heartbeatIntervalMs,
  type BoardActor,
  type BoardConfig,
  type BoardNotice,
} from '../../shared/board/board';
import { boardLimits } from '../../shared/board/board-limits';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { ToolUseBlock } from '../../shared/model/messages';
import { taskBoardToolNames, type TaskBoardToolName } from '../../shared/policy/tool-classification';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { BoardTaskBrief, BoardToolCallResult } from '../../shared/board/board-tool-call';
import { toolCallSummary } from '../../shared/tools/tool-summary';
import type { Activities } from '../runtime/activity-proxies';
import { signalBestEffort } from '../runtime/best-effort-signal';
import type { Inbox } from '../loop/inbox';
import type { WorkflowTool } from '../tools/tool-types';
import { scopeWhenNeeded } from '../runtime/scope-when-needed';

/** Board calls are quick; a lost worker is noticed by the start-to-close timeout and the call retried (its update id makes that safe). */
const boardToolOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
};
const boardToolActivities = proxyActivities<Activities>(boardToolOptions);

/** TaskCreated and TaskCompleted hooks (docs/hooks.md): each answers why it refuses the task, or undefined. */
export interface BoardHooks {
  created?(task: BoardTaskBrief & { board: string }): Promise<string | undefined>;
  completed?(task: BoardTaskBrief & { board: string }): Promise<string | undefined>;
}

/** An agent's link to its board (docs/board.md): its tools, and heartbeats on a timer that outlives a turn. */
export class AgentBoardLink {
  readonly boardId: string;
  private held: string[] = [];
  private leaseMs: number;
  private beating = false;
  private ended = false;
  /** Under the workflow's root scope: cancelled only when the agent is stopped. */
  private readonly scope = scopeWhenNeeded({ cancellable: true });

  constructor(
    private readonly input: AgentWorkflowInput,
    private readonly inbox: Inbox,
  ) {
    this.boardId = agentBoardId(input);
    this.leaseMs = input.carriedBoard?.leaseMs ?? input.limits.boardLeaseMs ?? boardLimits.defaultLeaseMs;
    if (input.carriedBoard && input.carriedBoard.held.length > 0)
      this.noteClaims(input.carriedBoard.held, input.carriedBoard.leaseMs);
  }

  /** The task-list tools, run by workflow code (wired in turn.ts). */
  workflowTools(hooks?: BoardHooks): Record<TaskBoardToolName, WorkflowTool> {
    return Object.fromEntries(
      taskBoardToolNames.map((name) => [name, (call: ToolUseBlock) => this.call(name, call, hooks)]),
    ) as Record<TaskBoardToolName, WorkflowTool>;
  }

  private run(
    name: TaskBoardToolName,
    toolUseId: string,
    input: Record<string, unknown>,
  ): Promise<BoardToolCallResult> {
    return boardToolActivities[name].executeWithOptions(
      { ...boardToolOptions, summary: toolCallSummary(name, input) },
      [{ board: this.config(), actor: this.actor(), toolUseId, input }],
    );
  }

  private async call(name: TaskBoardToolName, call: ToolUseBlock, hooks?: BoardHooks): Promise<ToolOutcome> {
    try {
      // A TaskCompleted hook may keep the task open: it hears of the task before the board marks it done.
      if (name === 'TaskUpdate' && call.input.status === 'completed' && hooks?.completed) {
        const current = await this.run('TaskGet', `${call.id}/hook`, { taskId: call.input.taskId });
        const refusal = current.task && (await hooks.completed({ ...current.task, board: this.boardId }));
        if (refusal) return hookRefused('TaskCompleted', `task #${current.task!.id} stays open`, refusal);
      }
      const result = await this.run(name, call.id, call.input);
      if (result.claims) this.noteClaims(result.claims.held, result.claims.leaseMs);
      // A TaskCreated hook that refuses the new task has it deleted again (Claude Code rolls the creation back).
      if (name === 'TaskCreate' && result.task && hooks?.created) {
        const refusal = await hooks.created({ ...result.task, board: this.boardId });
        if (refusal) {
          await this.run('TaskUpdate', `${call.id}/hook`, { taskId: result.task.id, status: 'deleted' });
          return hookRefused('TaskCreated', `task #${result.task.id} was deleted again`, refusal);
        }
      }
      return { content: result.content, isError: result.isError };
    } catch (error) {
      if (isCancellation(error)) throw error;
      const cause = error instanceof ActivityFailure ? error.cause : error;
      const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
      return {
        isError: true,
        content: errorText(
          ErrorType.BoardUnavailable,
          `${name} could not reach the task board ${this.boardId}: ${message}. Try again later.`,
        ),
      };
    }
  }

  /** A board returned claims of this agent (or, at the root, of its tree): the model is told at the next turn boundary. */
  receiveNotice(notice: BoardNotice): void {
    if (typeof notice?.text !== 'string' || !Array.isArray(notice.taskIds)) return;
    if (notice.ownerAgentId === this.input.agentId)
      this.held = this.held.filter((taskId) => !notice.taskIds.includes(taskId));
    this.inbox.pushNotification(notice.text.slice(0, 4_000));
  }

  /** The agent is ending: whatever it still holds goes back to the board at once (not after the lease). */
  async release(status: string): Promise<void> {
    this.ended = true;
    if (this.held.length === 0) return;
    this.held = [];
    await signalBestEffort(this.boardId, boardOwnerEndedSignal, {
      agentId: this.input.agentId,
      reason: `ended (${status})`,
    });
  }

  /** A rewind (docs/rewind.md): claims go back to the board, which tells the agent; the branch claims anew if it wants them. */
  async releaseForRewind(reason: string): Promise<string[]> {
    const released = [...this.held];
    if (released.length === 0) return released;
    this.held = [];
    await signalBestEffort(this.boardId, boardOwnerEndedSignal, { agentId: this.input.agentId, reason });
    return released;
  }

  /** What continue-as-new carries: the claims the next run keeps renewing. */
  carry(): CarriedBoardClaims | undefined {
    return this.held.length > 0 ? { held: [...this.held], leaseMs: this.leaseMs } : undefined;
  }

  private noteClaims(held: string[], leaseMs: number): void {
    this.held = [...held];
    this.leaseMs = leaseMs;
    if (this.held.length > 0 && !this.beating && !this.ended) {
      this.beating = true;
      void this.scope().run(() => this.heartbeats());
    }
  }

  /** Renews the claims every lease/3 while there are any; stops when the agent ends or is stopped. */
  private async heartbeats(): Promise<void> {
    try {
      while (this.held.length > 0 && !this.ended) {
        await sleep(heartbeatIntervalMs(this.leaseMs), { summary: 'task board heartbeat' });
        if (this.held.length === 0 || this.ended) break;
        // A board that is gone holds no claims to renew.
        if (!(await signalBestEffort(this.boardId, boardHeartbeatSignal, { agentId: this.input.agentId })))
          this.held = [];
      }
    } catch (error) {
      if (!isCancellation(error)) throw error;
    } finally {
      this.beating = false;
    }
  }

  private actor(): BoardActor {
    const { input } = this;
    return {
      kind: 'agent',
      id: input.agentId,
      ...(input.name ? { name: input.name } : {}),
      rootAgentId: input.rootAgentId,
    };
  }

  /** How to start the board if this agent's TaskCreate is the first. */
  private config(): BoardConfig {
    const { input } = this;
    return {
      boardId: this.boardId,
      ...(input.taskBoard ? { name: input.taskBoard } : { rootAgentId: input.rootAgentId }),
      leaseMs: Math.min(
        boardLimits.maxLeaseMs,
        Math.max(boardLimits.minLeaseMs, input.limits.boardLeaseMs ?? boardLimits.defaultLeaseMs),
      ),
    };
  }
}

/** The model's text for a task a hook refused. */
function hookRefused(event: 'TaskCreated' | 'TaskCompleted', what: string, reason: string): ToolOutcome {
  return {
    isError: true,
    content: errorText(ErrorType.HookBlocked, `a ${event} hook refused it: ${what}. The hook said: ${reason}`),
  };
}
