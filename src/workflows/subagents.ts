import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  ParentClosePolicy,
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { AgentResult, AgentWorkflowInput, ChildTaskSnapshot, PermissionMode } from '../shared/agent';
import type { AgentDefinition } from '../shared/agent-definition';
import { backgroundedSignal, messageSignal, stopNoticeSignal, treeAgentEventSignal, treeAgentStartedSignal, treeSpawnRequestSignal } from '../shared/definitions';
import { addTokenUsage, emptyTokenUsage, type ToolUseBlock } from '../shared/messages';
import { resolveSubagentModel } from '../shared/model-resolution';
import { agentDepthKey, agentTypeKey, parentAgentIdKey, rootAgentIdKey } from '../shared/search-attributes';
import { setupActivities, setupOptions } from './activity-proxies';
import type { AgentRuntime } from './agent-runtime';
import { checkSpawnLimits, parseAgentToolInput, type AgentToolInput } from './agent-tool-input';
import { workflowNowMs } from './clock';
import { asyncLaunchedText, autoBackgroundedText, projectChildResult, taskNotification } from './projection';
import { isForkConversation } from './fork';
import { assembleToolPool } from './tool-pool';
import type { ToolOutcome } from './tool-results';

/** The parent's record of one child (a task), with what it needs to wait for or stop it. */
interface ChildTask extends ChildTaskSnapshot {
  scope: CancellationScope;
  result?: AgentResult;
  /** Set when the final result came by the child's childFinal signal (cancelled/failed children). */
  reported?: AgentResult;
  stoppedBy?: string;
}

const error = (content: string): ToolOutcome => ({ content, isError: true });

/** Parent modes a child definition cannot narrow (SPEC §1.9). */
function childPermissionMode(parent: PermissionMode, definition: AgentDefinition): PermissionMode {
  if (parent === 'bypassPermissions' || parent === 'acceptEdits') return parent;
  return definition.permissionMode ?? 'default';
}

/** Spawning, waiting for and stopping an agent's children (the Agent tool and its tasks). */
export class Subagents {
  readonly tasks = new Map<string, ChildTask>();

  constructor(private readonly runtime: AgentRuntime) {}

  get runningCount(): number {
    return [...this.tasks.values()].filter((task) => task.status === 'running').length;
  }

  get runningBackgroundCount(): number {
    return [...this.tasks.values()].filter((task) => task.status === 'running' && task.background).length;
  }

  snapshot(): ChildTaskSnapshot[] {
    return [...this.tasks.values()].map(({ scope: _scope, result: _result, reported: _reported, stoppedBy: _stoppedBy, ...rest }) => rest);
  }

  /** Records the final result a cancelled or failed child sent before it ended. */
  onChildFinal(result: AgentResult): void {
    const task = this.tasks.get(result.agentId);
    if (task) task.reported = result;
  }

  /** Spawns that passed the limit checks but whose child is not registered yet (concurrent Agent calls). */
  private pendingSpawns = 0;
  private spawnContextLoad?: Promise<NonNullable<AgentRuntime['spawnContext']>>;

  /** The Agent tool. */
  async spawn(call: ToolUseBlock): Promise<ToolOutcome> {
    const parsed = parseAgentToolInput(call.input);
    if (!parsed.ok) return error(parsed.error);
    const request = parsed.value;
    const { input } = this.runtime;
    // The id is taken before anything awaits, so concurrent Agent calls get ids in tool_use order.
    this.runtime.state.spawnCount += 1;
    const childId = `${input.agentId}.${this.runtime.state.spawnCount}`;
    if (request.subagent_type === 'fork' || (request.subagent_type === undefined && input.limits.forking)) {
      return this.spawnFork(call, request, childId);
    }
    const context = await this.loadSpawnContext();
    const definitions = context.loaded.definitions;
    const typeName = request.subagent_type ?? 'general-purpose';
    const definition = definitions[typeName];
    if (!definition) {
      return error(`Unknown agent type "${typeName}". Valid types: ${Object.keys(definitions).sort().join(', ')}.`);
    }
    if (input.allowedAgentTypes && !input.allowedAgentTypes.includes(typeName)) {
      return error(`This agent may only start these agent types: ${input.allowedAgentTypes.join(', ')}. "${typeName}" is not one of them.`);
    }
    const refusal = this.limitRefusal(childId);
    if (refusal) return error(refusal);
    const background = request.run_in_background ?? definition.background ?? false;
    const permissionMode = childPermissionMode(input.permissionMode, definition);
    const tools = assembleToolPool({ definition, depth: input.depth + 1, maxDepth: input.limits.maxDepth, background, permissionMode });
    if (tools.length === 0) {
      return error(`Agent type "${typeName}" resolves to no tools${background ? ' when run in the background' : ''}; it cannot be started. Fix its tools/disallowedTools.`);
    }
    return this.launch(childId, call, request.description, background, () =>
      this.childInput(childId, call, request, definition, { background, permissionMode, tools, context }),
    );
  }

  /**
   * The fork path (SPEC §1.5): the child continues from this agent's exact request prefix — its
   * rendered system prompt bytes, tool list, model and whole conversation — and only the directive
   * differs between siblings. Read-file state and content-replacement decisions are copied.
   */
  private async spawnFork(call: ToolUseBlock, request: AgentToolInput, childId: string): Promise<ToolOutcome> {
    const { input, state } = this.runtime;
    if (isForkConversation(state.messages)) {
      return error(
        'ForkInsideFork: you are a fork and cannot fork again. Finish the directive yourself with your own tools ' +
          '(a named subagent_type is still possible within the depth limit).',
      );
    }
    const refusal = this.limitRefusal(childId);
    if (refusal) return error(refusal);
    const background = request.run_in_background ?? true;
    return this.launch(childId, call, request.description, background, () => {
      const notNarrowed = input.permissionMode === 'bypassPermissions' || input.permissionMode === 'acceptEdits';
      const childInput: AgentWorkflowInput = {
        agentId: childId,
        agentType: 'fork',
        name: request.name,
        description: request.description,
        prompt: request.prompt,
        model: input.model,
        definitionPrompt: input.definitionPrompt,
        renderedSystemPrompt: this.runtime.systemPrompt(),
        tools: [...input.tools],
        cwd: request.cwd ?? this.runtime.cwd,
        workspaceRoot: this.runtime.workspaceRoot,
        ...(request.isolation === 'worktree' ? { isolation: 'worktree' as const } : {}),
        permissionMode: notNarrowed ? input.permissionMode : 'bubble',
        maxTurns: input.limits.defaultMaxTurns,
        maxOutputTokens: input.maxOutputTokens,
        maxToolResultChars: input.maxToolResultChars,
        parentAgentId: input.agentId,
        rootAgentId: input.rootAgentId,
        depth: input.depth + 1,
        limits: input.limits,
        background,
        inForegroundChain: this.runtime.inForegroundChain && !background,
        parentToolUseId: call.id,
        allowedAgentTypes: input.allowedAgentTypes,
        forkFrom: {
          agentId: input.agentId,
          runId: workflowInfo().runId,
          messageCount: state.messages.length,
          conversationHash: state.conversationHash,
          directive: request.prompt,
        },
        carried: {
          messages: [],
          usage: emptyTokenUsage(),
          toolUses: 0,
          turn: 0,
          readFileState: { ...state.readFileState },
          contentReplacements: { ...state.contentReplacements },
          startedAtMs: workflowNowMs(),
          spawnCount: 0,
          descendantUsage: emptyTokenUsage(),
        },
      };
      return childInput;
    });
  }

  /** The local limits a spawn must pass (the tree's limits are the root's decision). */
  private limitRefusal(childId: string): string | undefined {
    const { input } = this.runtime;
    return checkSpawnLimits({
      depth: input.depth,
      maxDepth: input.limits.maxDepth,
      runningChildren: this.runningCount + this.pendingSpawns,
      maxChildrenPerAgent: input.limits.maxChildrenPerAgent,
      spawningPaused: false,
      budgetExceeded: this.runtime.tree?.budgetExceeded ?? false,
      childId,
      ancestorIds: ancestorsOf(input.agentId),
    });
  }

  /** Reserves the tree slot, starts the child, and answers the Agent call (at once, or when a foreground child ends). */
  private async launch(childId: string, call: ToolUseBlock, description: string, background: boolean, buildInput: () => AgentWorkflowInput): Promise<ToolOutcome> {
    this.pendingSpawns += 1;
    let task: ChildTask;
    try {
      const slot = await this.reserveTreeSlot(childId);
      if (slot) return error(slot);
      task = await this.startChildTask(buildInput(), call.id, background);
    } finally {
      this.pendingSpawns -= 1;
    }
    if (background) return { content: asyncLaunchedText(childId, description), isError: false };
    return this.waitForeground(task);
  }

  private childInput(
    childId: string,
    call: ToolUseBlock,
    request: AgentToolInput,
    definition: AgentDefinition,
    options: { background: boolean; permissionMode: PermissionMode; tools: string[]; context: NonNullable<AgentRuntime['spawnContext']> },
  ): AgentWorkflowInput {
    const { input } = this.runtime;
    const cwd = request.cwd ?? this.runtime.cwd;
    const root = this.runtime.workspaceRoot;
    const insideWorkspace = cwd === root || cwd.startsWith(`${root}/`);
    const isolation = request.isolation ?? (request.cwd ? undefined : definition.isolation);
    return {
      agentId: childId,
      agentType: definition.name,
      name: request.name,
      description: request.description,
      prompt: request.prompt,
      model: resolveSubagentModel({
        environmentOverride: options.context.subagentModelOverride,
        callModel: request.model,
        definitionModel: definition.model,
        parentModel: input.model,
      }),
      definitionPrompt: definition.prompt,
      tools: options.tools,
      cwd,
      workspaceRoot: insideWorkspace ? root : cwd,
      ...(isolation === 'worktree' ? { isolation } : {}),
      permissionMode: options.permissionMode,
      maxTurns: definition.maxTurns ?? input.limits.defaultMaxTurns,
      maxOutputTokens: input.maxOutputTokens,
      maxToolResultChars: input.maxToolResultChars,
      parentAgentId: input.agentId,
      rootAgentId: input.rootAgentId,
      depth: input.depth + 1,
      limits: input.limits,
      background: options.background,
      inForegroundChain: this.runtime.inForegroundChain && !options.background,
      parentToolUseId: call.id,
      allowedAgentTypes: definition.allowedAgentTypes,
    };
  }

  /** Starts a child workflow in its own abort domain: not the turn's, so only an explicit stop or interrupt cancels it. */
  async startChildTask(childInput: AgentWorkflowInput, toolUseId: string, background: boolean): Promise<ChildTask> {
    const scope = new CancellationScope({ cancellable: true, parent: this.runtime.childrenParent });
    const handle: ChildWorkflowHandle<(input: AgentWorkflowInput) => Promise<AgentResult>> = await scope.run(() =>
      startChild('agentWorkflow', {
        workflowId: childInput.agentId,
        args: [childInput],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        typedSearchAttributes: [
          { key: agentTypeKey, value: childInput.agentType },
          { key: parentAgentIdKey, value: this.runtime.input.agentId },
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
    };
    this.tasks.set(task.agentId, task);
    await this.reportStarted(childInput, background);
    // Bookkeeping of the child's end must survive an interrupt of the turn that started it.
    void CancellationScope.nonCancellable(async () => {
      let result: AgentResult;
      try {
        result = await handle.result();
      } catch (failure) {
        result = await this.resultOfFailure(task, failure);
      }
      await this.onChildDone(task, result);
    });
    return task;
  }

  /** Foreground: the turn waits, until the auto-background threshold moves the child to the background. */
  private async waitForeground(task: ChildTask): Promise<ToolOutcome> {
    const threshold = this.runtime.input.limits.autoBackgroundMs;
    const finished = await condition(() => task.result !== undefined, threshold);
    if (finished && task.result) {
      return { content: projectChildResult(task.result), isError: task.result.status === 'failed' };
    }
    // The child keeps running untouched: only the parent stops waiting (no restart, same run).
    task.background = true;
    await this.reportBackgrounded(task.agentId);
    await getExternalWorkflowHandle(task.agentId).signal(backgroundedSignal).catch(() => undefined);
    return { content: autoBackgroundedText(task.agentId, task.description, threshold), isError: false };
  }

  private async resultOfFailure(task: ChildTask, failure: unknown): Promise<AgentResult> {
    const cause = failure instanceof ChildWorkflowFailure ? failure.cause : failure;
    if (cause instanceof ApplicationFailure && cause.type === 'AgentFailed') {
      const partial = cause.details?.[0] as AgentResult | undefined;
      if (partial) return partial;
    }
    if (isCancellation(cause) || isCancellation(failure)) {
      // A cancelled child reports its partial result by signal before it ends; wait briefly for it.
      await condition(() => task.reported !== undefined, '5 seconds');
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
    this.runtime.state.descendantUsage = addTokenUsage(this.runtime.state.descendantUsage, result.treeUsage);
    // Queued before anything awaits, so a parent waiting for "no running background task" also sees the notification.
    if (task.background) this.runtime.inbox.pushNotification(taskNotification(result, task.description, task.toolUseId));
    await this.reportFinished(task.agentId, task.background);
  }

  /** Stops one of this agent's own children (and its subtree), saying who and why. */
  async stopTask(agentId: string, by: string, reason: string): Promise<ToolOutcome> {
    const task = this.tasks.get(agentId) ?? [...this.tasks.values()].find((candidate) => candidate.name === agentId);
    if (!task) return error(`No task "${agentId}" among this agent's own subagents. Own tasks: ${[...this.tasks.keys()].join(', ') || '(none)'}.`);
    if (task.status !== 'running') return error(`Task ${task.agentId} already finished (${task.status}).`);
    await this.requestStop(task, by, reason);
    await condition(() => task.result !== undefined);
    return { content: `Stopped ${task.agentId}.`, isError: false };
  }

  /** Tells a child who stops it and why, then cancels its abort domain (the child cascades to its own children). */
  private async requestStop(task: ChildTask, by: string, reason: string): Promise<void> {
    task.stoppedBy = `stopped by ${by}: ${reason}`;
    await getExternalWorkflowHandle(task.agentId).signal(stopNoticeSignal, { by, reason }).catch(() => undefined);
    task.scope.cancel();
  }

  /** Stops the foreground children started since `before` (an interrupted turn's children). */
  async stopForegroundStartedSince(before: ReadonlySet<string>, by: string, reason: string): Promise<void> {
    for (const task of this.tasks.values()) {
      if (!before.has(task.agentId) && task.status === 'running' && !task.background) await this.stopTask(task.agentId, by, reason);
    }
  }

  /** Stops every running child at once and waits until all have closed: a parent never leaves children behind. */
  async stopAll(by: string, reason: string): Promise<void> {
    const running = [...this.tasks.values()].filter((task) => task.status === 'running');
    await Promise.all(running.map((task) => this.requestStop(task, by, reason)));
    await condition(() => running.every((task) => task.result !== undefined));
  }

  /** Sends a directed message to a running child by name or agentId. */
  async message(target: string, text: string): Promise<ToolOutcome | undefined> {
    const task = this.tasks.get(target) ?? [...this.tasks.values()].find((candidate) => candidate.name === target);
    if (!task) return undefined;
    if (task.status !== 'running') return undefined;
    await getExternalWorkflowHandle(task.agentId).signal(messageSignal, { from: this.runtime.input.agentId, text });
    return { content: `Message queued for ${task.agentId}; it is delivered at its next turn boundary.`, isError: false };
  }

  findTask(target: string): ChildTask | undefined {
    return this.tasks.get(target) ?? [...this.tasks.values()].find((candidate) => candidate.name === target);
  }

  /** Definitions are loaded once per agent run, on its first spawn (concurrent spawns share the load). */
  private async loadSpawnContext(): Promise<NonNullable<AgentRuntime['spawnContext']>> {
    if (this.runtime.spawnContext) return this.runtime.spawnContext;
    this.spawnContextLoad ??= setupActivities.loadSpawnContext.executeWithOptions({ ...setupOptions, summary: 'load agent definitions' }, [
      { cwd: this.runtime.cwd },
    ]);
    this.runtime.spawnContext = await this.spawnContextLoad;
    return this.runtime.spawnContext;
  }

  /** Asks the tree's root for a slot (the root decides locally). Returns a refusal, or undefined when granted. */
  private async reserveTreeSlot(childId: string): Promise<string | undefined> {
    const { tree, input, spawnReplies } = this.runtime;
    if (tree) {
      const decision = tree.request(childId);
      return decision.granted ? undefined : decision.reason;
    }
    const requestId = `${childId}@${input.agentId}`;
    await getExternalWorkflowHandle(input.rootAgentId).signal(treeSpawnRequestSignal, { requestId, requesterId: input.agentId, childId });
    await condition(() => spawnReplies.has(requestId));
    const reply = spawnReplies.get(requestId)!;
    spawnReplies.delete(requestId);
    return reply.granted ? undefined : (reply.reason ?? 'SpawnLimitReached: the tree refused the spawn.');
  }

  private async reportStarted(child: AgentWorkflowInput, background: boolean): Promise<void> {
    const { tree, input } = this.runtime;
    const event = {
      agentId: child.agentId,
      parentAgentId: input.agentId,
      background,
      agentType: child.agentType,
      description: child.description,
      name: child.name,
      depth: child.depth,
      startedAtMs: workflowNowMs(),
    };
    if (tree) tree.started(event, workflowNowMs());
    else await signalRoot(input.rootAgentId, () => getExternalWorkflowHandle(input.rootAgentId).signal(treeAgentStartedSignal, event));
  }

  private async reportBackgrounded(agentId: string): Promise<void> {
    const { tree, input } = this.runtime;
    const event = { agentId, parentAgentId: input.agentId, background: true };
    if (tree) tree.started(event, workflowNowMs());
    else await signalRoot(input.rootAgentId, () => getExternalWorkflowHandle(input.rootAgentId).signal(treeAgentStartedSignal, event));
  }

  private async reportFinished(agentId: string, background: boolean): Promise<void> {
    const { tree, input } = this.runtime;
    if (tree) tree.finished(agentId, workflowNowMs());
    else await signalRoot(input.rootAgentId, () => getExternalWorkflowHandle(input.rootAgentId).signal(treeAgentEventSignal, { agentId, kind: 'finished', background }));
  }
}

/** The root may already be gone (e.g. stopped): reports to it are best effort. */
async function signalRoot(_rootId: string, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (failure) {
    if (isCancellation(failure)) throw failure;
  }
}

/** Ancestors of an agent, from its id (`root.1.2` → `root`, `root.1`): lineage is cycle-free by construction. */
export function ancestorsOf(agentId: string): string[] {
  const parts = agentId.split('.');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('.'));
}
