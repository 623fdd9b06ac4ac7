import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  ChildWorkflowFailure,
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput, ChildTaskSnapshot } from '../../shared/agents/agent';
import { backgroundedSignal, messageSignal } from '../../shared/protocol/definitions';
import { ErrorType } from '../../shared/protocol/errors';
import { childFinalReportWait } from '../../shared/protocol/limits';
import { emptyTokenUsage } from '../../shared/model/messages';
import { agentDepthKey, agentTypeKey, parentAgentIdKey, rootAgentIdKey } from '../../shared/protocol/search-attributes';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import type { AgentState } from '../loop/agent-state';
import { signalBestEffort } from '../runtime/best-effort-signal';
import { workflowNowMs } from '../runtime/clock';
import type { Inbox } from '../loop/inbox';
import { autoBackgroundedText, projectChildResult, taskNotification } from '../context/projection';
import type { TreeLink } from './tree-link';
import { scopeWhenNeeded } from '../runtime/scope-when-needed';
import { tellStopped } from './stop-delivery';
import { stopNotice } from '../../shared/protocol/stop-notice-reason';

/** The parent's record of one child (a task), with what it needs to wait for or stop it. */
interface ChildTask extends ChildTaskSnapshot {
  scope: CancellationScope;
  result?: AgentResult;
  /** Set when the final result came by the child's childFinal signal (a cancelled child). */
  reported?: AgentResult;
  stoppedBy?: string;
  /** False for a child this agent's model did not start (resumed inside the tree): no task notification. */
  notify: boolean;
  /** The turn of this agent it started in (a rewind to an earlier boundary stops it). */
  startedInTurn: number;
}

const error = (content: string): ToolOutcome => ({ content, isError: true });

/** An agent's children: each in its own abort domain, waited for when foreground, messaged and stopped. */
export class Children {
  /** Set when this agent stops with the whole tree: its children's ends are not reported to the root. */
  private stoppingWholeTree = false;
  /** Set when this agent has ended and stops its children: they send no partial result, none is awaited. */
  private takesNoReports = false;
  private readonly tasks = new Map<string, ChildTask>();
  /** Parent of every child's abort domain; not cancellable, so children stop only when told who stopped them. */
  private readonly parentScope = scopeWhenNeeded({ cancellable: false });

  constructor(
    private readonly input: AgentWorkflowInput,
    private readonly state: AgentState,
    private readonly inbox: Inbox,
    private readonly tree: TreeLink,
  ) {}

  get runningCount(): number {
    return [...this.tasks.values()].filter((task) => task.status === 'running').length;
  }

  get runningBackgroundCount(): number {
    return [...this.tasks.values()].filter((task) => task.status === 'running' && task.background).length;
  }

  /** The agentIds of every child so far (to tell which children a turn started). */
  ids(): Set<string> {
    return new Set(this.tasks.keys());
  }

  snapshot(): ChildTaskSnapshot[] {
    return [...this.tasks.values()].map(
      ({ scope: _scope, result: _result, reported: _reported, stoppedBy: _stoppedBy, notify: _notify, ...rest }) =>
        rest,
    );
  }

  /** A child of this agent, by agentId or name. */
  find(target: string): Readonly<ChildTask> | undefined {
    return this.tasks.get(target) ?? [...this.tasks.values()].find((candidate) => candidate.name === target);
  }

  /** Records the final result a cancelled child sent before it ended. */
  onChildFinal(result: AgentResult): void {
    const task = this.tasks.get(result.agentId);
    if (task) task.reported = result;
  }

  anyRunning(): boolean {
    for (const task of this.tasks.values()) if (task.status === 'running') return true;
    return false;
  }

  isRunning(agentId: string): boolean {
    return this.tasks.get(agentId)?.status === 'running';
  }

  /** Starts a child workflow in its own abort domain: not the turn's, so only an explicit stop or interrupt cancels it. */
  async start(
    childInput: AgentWorkflowInput,
    toolUseId: string,
    background: boolean,
    options: { notify?: boolean; workflowType?: string } = {},
  ): Promise<Readonly<ChildTask>> {
    const scope = new CancellationScope({ cancellable: true, parent: this.parentScope() });
    const handle: ChildWorkflowHandle<(input: AgentWorkflowInput) => Promise<AgentResult>> = await scope.run(() =>
      startChild(options.workflowType ?? 'agentWorkflow', {
        workflowId: childInput.agentId,
        args: [childInput],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        typedSearchAttributes: [
          { key: agentTypeKey, value: childInput.agentType },
          // A resumed descendant keeps its own parent (the ancestor that resumed it starts its workflow).
          { key: parentAgentIdKey, value: childInput.parentAgentId ?? this.input.agentId },
          { key: rootAgentIdKey, value: childInput.rootAgentId },
          { key: agentDepthKey, value: childInput.depth },
        ],
        staticSummary: `${childInput.agentType}: ${childInput.description ?? ''}`.slice(0, 200),
        staticDetails: `**Prompt**\n\n${childInput.prompt.slice(0, 4000)}\n\n**Model** ${childInput.model} · **tools** ${childInput.tools.join(', ')}`,
      }),
    );
    const task: ChildTask = {
      agentId: childInput.agentId,
      agentType: childInput.agentType,
      description: childInput.description ?? '',
      name: childInput.name,
      background,
      status: 'running',
      startedAtMs: workflowNowMs(),
      toolUseId,
      scope,
      notify: options.notify ?? true,
      startedInTurn: this.state.turns.next,
    };
    this.tasks.set(task.agentId, task);
    await this.tree.reportStarted({
      agentId: childInput.agentId,
      background,
      agentType: childInput.agentType,
      ...(childInput.color ? { color: childInput.color } : {}),
      description: childInput.description,
      name: childInput.name,
      depth: childInput.depth,
      startedAtMs: workflowNowMs(),
      ...(childInput.budgetCaps ? { budgetCaps: childInput.budgetCaps } : {}),
    });
    // The child's end is recorded outside the turn's scope, so an interrupt of that turn cannot lose it.
    const bookkeeping = async () => {
      let result: AgentResult;
      try {
        result = await handle.result();
      } catch (failure) {
        result = await this.resultOfFailure(task, failure);
      }
      await this.onChildDone(task, result);
    };
    void this.parentScope().run(bookkeeping);
    return task;
  }

  /** Foreground: the turn waits, until the auto-background threshold moves the child to the background. */
  async waitForeground(child: Readonly<ChildTask>): Promise<ToolOutcome> {
    const task = this.tasks.get(child.agentId)!;
    const threshold = this.input.limits.autoBackgroundMs;
    const finished = await condition(() => task.result !== undefined, threshold);
    if (finished && task.result) {
      return { content: projectChildResult(task.result), isError: task.result.status === 'failed' };
    }
    // The child keeps running untouched: only the parent stops waiting (no restart, same run).
    task.background = true;
    await this.tree.reportBackgrounded(task.agentId);
    await signalBestEffort(task.agentId, backgroundedSignal);
    return { content: autoBackgroundedText(task.agentId, task.description, threshold), isError: false };
  }

  private async resultOfFailure(task: ChildTask, failure: unknown): Promise<AgentResult> {
    const cause = failure instanceof ChildWorkflowFailure ? failure.cause : failure;
    if (cause instanceof ApplicationFailure && cause.type === ErrorType.AgentFailed) {
      const partial = cause.details?.[0] as AgentResult | undefined;
      if (partial) return partial;
    }
    if ((isCancellation(cause) || isCancellation(failure)) && !this.takesNoReports) {
      // A cancelled child reports its partial result by signal before it ends; wait briefly for it.
      await condition(() => task.reported !== undefined, childFinalReportWait);
    }
    if (task.reported) return task.reported;
    const message = cause instanceof Error ? cause.message : String(cause);
    return {
      agentId: task.agentId,
      agentType: task.agentType,
      status: isCancellation(cause) ? 'cancelled' : 'failed',
      finalText: '',
      error: task.stoppedBy ?? message,
      usage: emptyTokenUsage(),
      toolUses: 0,
      turns: 0,
      durationMs: workflowNowMs() - task.startedAtMs,
      model: '',
      treeUsage: emptyTokenUsage(),
    };
  }

  private async onChildDone(task: ChildTask, result: AgentResult): Promise<void> {
    task.result = result;
    task.status = result.status;
    this.state.addDescendantUsage(result.treeUsage);
    // Queued before anything awaits, so a parent waiting for "no running background task" also sees the notification.
    if (task.background && task.notify)
      this.inbox.pushNotification(taskNotification(result, task.description, task.toolUseId));
    // In a whole-tree stop the root marks every agent finished once its own children have closed.
    if (this.stoppingWholeTree && !this.tree.coordinator) return;
    await this.tree.reportFinished(task.agentId, task.background);
  }

  /** Stops one of this agent's own children (and its subtree), saying who and why. */
  async stop(target: string, by: string, reason: string): Promise<ToolOutcome> {
    const found = this.find(target);
    if (!found)
      return error(
        `No task "${target}" among this agent's own subagents. Own tasks: ${[...this.tasks.keys()].join(', ') || '(none)'}.`,
      );
    const task = this.tasks.get(found.agentId)!;
    if (task.status !== 'running') return error(`Task ${task.agentId} already finished (${task.status}).`);
    this.requestStop(task, by, reason);
    await condition(() => task.result !== undefined);
    return { content: `Stopped ${task.agentId}.`, isError: false };
  }

  /** Tells a child who stops it and why and cancels its abort domain, in this workflow task (stop-delivery.ts). */
  private requestStop(
    task: ChildTask,
    by: string,
    reason: string,
    marks: { wholeTree?: boolean; parentEnded?: boolean } = {},
  ): void {
    task.stoppedBy = `stopped by ${by}: ${reason}`;
    tellStopped(task.agentId, stopNotice(by, reason, marks));
    task.scope.cancel();
  }

  /** Stops the foreground children started since `before` (an interrupted turn's children). */
  async stopForegroundStartedSince(before: ReadonlySet<string>, by: string, reason: string): Promise<void> {
    for (const task of this.tasks.values()) {
      if (!before.has(task.agentId) && task.status === 'running' && !task.background)
        await this.stop(task.agentId, by, reason);
    }
  }

  /** A rewind to boundary `turn` (docs/rewind.md): stops the running children started after it; returns their ids. */
  async stopStartedAfter(turn: number, by: string, reason: string): Promise<string[]> {
    const later = [...this.tasks.values()].filter((task) => task.status === 'running' && task.startedInTurn > turn);
    for (const task of later) this.requestStop(task, by, reason);
    await condition(() => later.every((task) => task.result !== undefined));
    return later.map((task) => task.agentId);
  }

  /** Stops every running child and waits for them to close; `wholeTree` and `parentEnded` skip their reports. */
  async stopAll(
    by: string,
    reason: string,
    options: { wholeTree?: boolean; parentEnded?: boolean } = {},
  ): Promise<void> {
    const marks = { wholeTree: options.wholeTree === true, parentEnded: options.parentEnded === true };
    if (marks.wholeTree) this.stoppingWholeTree = true;
    if (marks.parentEnded) this.takesNoReports = true;
    const running = [...this.tasks.values()].filter((task) => task.status === 'running');
    for (const task of running) this.requestStop(task, by, reason, marks);
    await condition(() => running.every((task) => task.result !== undefined));
  }

  /** Sends a directed message to a running child; it is delivered at the child's next turn boundary. */
  async message(child: Readonly<ChildTask>, text: string): Promise<ToolOutcome> {
    await getExternalWorkflowHandle(child.agentId).signal(messageSignal, { from: this.input.agentId, text });
    return {
      content: `Message queued for ${child.agentId}; it is delivered at its next turn boundary.`,
      isError: false,
    };
  }
}
