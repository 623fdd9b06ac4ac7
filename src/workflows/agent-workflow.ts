import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentResult, AgentStatus, AgentStatusSnapshot, AgentWorkflowInput } from '../shared/agent';
import {
  approvalDecisionSignal,
  backgroundedSignal,
  childFinalSignal,
  closeSignal,
  conversationQuery,
  interruptSignal,
  messageSignal,
  resumeStateQuery,
  statusQuery,
  steerSignal,
  steerUpdate,
  stopNoticeSignal,
  treeAgentEventSignal,
  treeSpawnReplySignal,
} from '../shared/definitions';
import { ErrorType } from '../shared/errors';
import { addTokenUsage, type StopReason, type TokenUsage, type ToolUseBlock } from '../shared/messages';
import type { ModelCallResult } from '../shared/model-call';
import { modelActivities, modelOptions, setupActivities, setupOptions } from './activity-proxies';
import { buildForkedMessages } from './fork';
import type { AgentRuntime } from './agent-runtime';
import { AgentState } from './agent-state';
import { authorizeToolCall } from './approvals';
import { workflowNowMs } from './clock';
import { Inbox } from './inbox';
import { enforceTreeBudget, installRootHandlers } from './root-handlers';
import { runToolCalls } from './run-tools';
import { sendMessageTool } from './send-message';
import { Subagents } from './subagents';
import { buildToolResultMessage, textOf, toolUsesOf, type ToolOutcome } from './tool-results';
import { TreeCoordinator } from './tree-coordinator';

const defaultMaxOutputTokens = 8192;
const interruptedText = '[Request interrupted by user]';

/** How one turn (model call and its tools, in the turn's abort domain) ended. */
type TurnOutcome =
  | { type: 'final'; text: string; stopReason: StopReason }
  | { type: 'tools_done' }
  | { type: 'refused'; text: string }
  | { type: 'failed'; error: string }
  | { type: 'interrupted'; by: string; reason: string };

/** One agent instance: the query loop (model call → tools → results → repeat) as a workflow. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  const state = new AgentState(input.carried);
  const isRoot = input.parentAgentId === undefined;
  let systemPrompt = input.renderedSystemPrompt ?? '';
  const runtime: AgentRuntime = {
    input,
    state,
    systemPrompt: () => systemPrompt,
    cwd: input.carried?.worktree?.cwd ?? input.cwd,
    workspaceRoot: input.carried?.worktree?.path ?? input.workspaceRoot,
    lifetime: CancellationScope.current(),
    childrenParent: new CancellationScope({ cancellable: false }),
    inbox: new Inbox(),
    tree: isRoot ? new TreeCoordinator(input.agentId, input.limits) : undefined,
    spawnReplies: new Map(),
    inForegroundChain: input.inForegroundChain ?? isRoot,
    approvalDecisions: new Map(),
    pendingApprovals: new Set(),
    alwaysAllowed: new Set(),
  };
  const subagents = new Subagents(runtime);
  const snapshot = initialSnapshot(input, state);
  let result: AgentResult | undefined;
  let closed = false;
  const undelivered: string[] = [];

  // Handlers first, so nothing that arrives early is lost.
  setHandler(conversationQuery, ({ from }) => ({
    systemPrompt,
    tools: input.tools,
    messages: state.messages.slice(Math.max(0, from)),
    from,
    total: state.messages.length,
  }));
  setHandler(statusQuery, () => ({
    ...snapshot,
    turn: state.turn,
    usage: state.usage,
    toolUses: state.toolUses,
    messageCount: state.messages.length,
    treeUsage: addTokenUsage(state.usage, state.descendantUsage),
    children: subagents.snapshot(),
    acceptsSteering: result === undefined,
    pendingApprovals: runtime.pendingApprovals.size,
  }));
  setHandler(resumeStateQuery, () => ({
    input: { ...input, renderedSystemPrompt: systemPrompt, carried: undefined },
    carried: state.carry(),
    status: snapshot.state,
    result,
    stoppedBy: runtime.stopNotice?.by,
  }));
  setHandler(messageSignal, (message) => {
    if (result) undelivered.push(message.text);
    else runtime.inbox.pushMessage(message.from, message.text);
  });
  const steer = ({ text, by }: { text: string; by?: string }) => {
    if (result) undelivered.push(text);
    else runtime.inbox.pushSteer(by ?? 'user', text);
    return { queued: true as const, turn: state.turn };
  };
  setHandler(steerUpdate, steer, {
    validator: ({ text }) => {
      if (result) throw new Error(`Agent ${input.agentId} already finished (${result.status}); the steer was not delivered.`);
      if (typeof text !== 'string' || text.trim() === '') throw new Error('A steer needs non-empty text.');
    },
  });
  setHandler(steerSignal, (steerInput) => void steer(steerInput));
  setHandler(interruptSignal, ({ by, reason }) => {
    if (result || !runtime.currentTurn) return;
    runtime.interrupt = { by: by ?? 'user', reason: reason ?? 'interrupted' };
    runtime.currentTurn.cancel();
  });
  setHandler(closeSignal, () => {
    closed = true;
  });
  setHandler(stopNoticeSignal, (notice) => {
    runtime.stopNotice = notice;
  });
  setHandler(backgroundedSignal, () => {
    runtime.inForegroundChain = false;
  });
  setHandler(approvalDecisionSignal, (decision) => {
    runtime.approvalDecisions.set(decision.requestId, decision);
  });
  setHandler(childFinalSignal, (childResult) => subagents.onChildFinal(childResult));
  setHandler(treeSpawnReplySignal, (reply) => {
    runtime.spawnReplies.set(reply.requestId, reply);
  });
  if (runtime.tree) installRootHandlers(runtime, runtime.tree);
  if (input.carriedTree) runtime.tree?.restore(input.carriedTree);
  if (input.carriedInbox) runtime.inbox.restore(input.carriedInbox);

  /**
   * Long sessions: continue-as-new at a turn boundary when Temporal suggests it or past the event
   * threshold — only with no running children (they are bound to this run) and no pending approval,
   * after every handler has finished, carrying the conversation, counters, inbox and tree state.
   */
  const continueIfDue = async (): Promise<void> => {
    const info = workflowInfo();
    const due = info.continueAsNewSuggested || info.historyLength >= input.limits.continueAsNewAfterEvents;
    if (!due || subagents.runningCount > 0 || runtime.pendingApprovals.size > 0) return;
    await condition(allHandlersFinished);
    if (subagents.runningCount > 0 || runtime.pendingApprovals.size > 0) return;
    await continueAsNew<typeof agentWorkflow>({
      ...input,
      renderedSystemPrompt: systemPrompt,
      forkFrom: undefined,
      carried: state.carry(),
      carriedInbox: runtime.inbox.pending(),
      carriedTree: runtime.tree?.carry(),
      continuedRuns: (input.continuedRuns ?? 0) + 1,
    });
  };

  const finish = (status: AgentStatus, finalText: string, extra: Partial<AgentResult> = {}): AgentResult => {
    undelivered.push(...runtime.inbox.drainUndelivered());
    result = {
      agentId: input.agentId,
      agentType: input.agentType,
      status,
      finalText,
      usage: state.usage,
      toolUses: state.toolUses,
      turns: state.turn,
      durationMs: workflowNowMs() - state.startedAtMs,
      model: input.model,
      treeUsage: addTokenUsage(state.usage, state.descendantUsage),
      ...(undelivered.length > 0 ? { undelivered } : {}),
      ...extra,
    };
    snapshot.state = 'finished';
    snapshot.result = result;
    setCurrentDetails(`**${status}** after ${state.turn} turns, ${state.toolUses} tool uses`);
    return result;
  };

  const reportUsage = async (usage: TokenUsage): Promise<void> => {
    if (input.limits.treeTokenBudget === undefined) return;
    if (runtime.tree) {
      if (runtime.tree.addUsage(usage)) await enforceTreeBudget(runtime.tree, input);
      return;
    }
    await getExternalWorkflowHandle(input.rootAgentId)
      .signal(treeAgentEventSignal, { agentId: input.agentId, kind: 'usage', usage })
      .catch(() => undefined);
  };

  const toolContext = () => ({ agentId: input.agentId, workspaceRoot: runtime.workspaceRoot, cwd: runtime.cwd, maxResultChars: input.maxToolResultChars });

  /** The tools of one assistant message; outcomes are kept as they finish. */
  const runTools = (toolUses: ToolUseBlock[], outcomes: Record<string, ToolOutcome>) =>
    runToolCalls(
      toolUses,
      {
        pool: input.tools,
        toolContext: toolContext(),
        readFileState: state.readFileState,
        workflowTools: {
          Agent: (call) => subagents.spawn(call),
          SendMessage: (call) => sendMessageTool(call, runtime, subagents),
          TaskStop: (call) => subagents.stopTask(String(call.input.task_id ?? ''), input.agentId, 'its parent stopped it'),
        },
        authorize: (call) => authorizeToolCall(call, runtime),
        onStart: (call) => {
          snapshot.lastTool = call.name;
          snapshot.currentTools = [...snapshot.currentTools, call.name];
          setCurrentDetails(`turn ${state.turn}/${input.maxTurns}: running ${call.name}`);
        },
        onReadFiles: (records) => state.recordReadFiles(records),
        onReplacement: (replacement) => {
          state.contentReplacements[replacement.toolUseId] = replacement;
        },
      },
      outcomes,
    );

  /** One turn in its own abort domain: interrupt cancels it, and every tool_use still gets a result. */
  const runTurn = async (): Promise<TurnOutcome> => {
    const turnScope = new CancellationScope();
    runtime.currentTurn = turnScope;
    let toolUses: ToolUseBlock[] = [];
    const outcomes: Record<string, ToolOutcome> = {};
    const childrenBefore = new Set(subagents.tasks.keys());
    try {
      return await turnScope.run(async () => {
        snapshot.state = 'calling_model';
        setCurrentDetails(`turn ${state.turn}/${input.maxTurns}: calling ${input.model}`);
        runtime.inbox.markSent();
        const response = await callModel(input, state);
        if ('failure' in response) return { type: 'failed' as const, error: response.failure };
        state.addUsage(response.usage);
        await reportUsage(response.usage);
        if (response.content.length > 0) state.append({ role: 'assistant', content: response.content });
        toolUses = toolUsesOf(response.content);
        if (response.stopReason === 'refusal') {
          // The tools of a refused turn are not run, but each still gets a result so the history stays valid.
          if (toolUses.length > 0) state.append(buildToolResultMessage(toolUses, {}, 'Not run: the model refused this turn.'));
          return { type: 'refused' as const, text: textOf(response.content) };
        }
        if (toolUses.length === 0) return { type: 'final' as const, text: textOf(response.content), stopReason: response.stopReason };
        snapshot.state = 'running_tools';
        state.toolUses += toolUses.length;
        await runTools(toolUses, outcomes);
        snapshot.currentTools = [];
        state.append(buildToolResultMessage(toolUses, outcomes, 'Tool call did not complete.', runtime.inbox.drain()));
        return { type: 'tools_done' as const };
      });
    } catch (error) {
      const interrupt = runtime.interrupt;
      if (!isCancellation(error) || !interrupt || runtime.lifetime.consideredCancelled) throw error;
      // Interrupted: foreground children of this turn are stopped (cascading), and every tool_use is answered.
      snapshot.currentTools = [];
      await subagents.stopForegroundStartedSince(childrenBefore, interrupt.by, 'its parent turn was interrupted');
      if (toolUses.length > 0) {
        state.append(buildToolResultMessage(toolUses, outcomes, `Interrupted by ${interrupt.by} before this tool finished.`, [interruptedText]));
      } else {
        state.append({ role: 'user', content: [{ type: 'text', text: interruptedText }] });
      }
      return { type: 'interrupted', ...interrupt };
    } finally {
      runtime.currentTurn = undefined;
      runtime.interrupt = undefined;
    }
  };

  /** Waits at a turn boundary for something to deliver; false when there is nothing more to do. */
  const waitForInput = async (): Promise<boolean> => {
    if (runtime.inbox.size === 0 && subagents.runningBackgroundCount > 0) {
      snapshot.state = 'waiting';
      setCurrentDetails(`waiting for ${subagents.runningBackgroundCount} background agent(s)`);
      await condition(() => runtime.inbox.size > 0 || subagents.runningBackgroundCount === 0);
    }
    if (runtime.inbox.size === 0 && input.interactive && !closed) {
      snapshot.state = 'waiting';
      setCurrentDetails('waiting for the next message');
      await condition(() => runtime.inbox.size > 0 || closed, input.interactive.idleTimeoutMs);
    }
    if (runtime.inbox.size === 0) return false;
    state.append({ role: 'user', content: runtime.inbox.drain().map((text) => ({ type: 'text' as const, text })) });
    return true;
  };

  const loop = async (): Promise<AgentResult> => {
    if (input.isolation === 'worktree' && !state.worktree) {
      state.worktree = await setupActivities.createWorktree.executeWithOptions({ ...setupOptions, summary: 'create git worktree' }, [
        { agentId: input.agentId, cwd: runtime.cwd },
      ]);
      runtime.cwd = state.worktree.cwd;
      runtime.workspaceRoot = state.worktree.path;
    }
    if (!systemPrompt) {
      systemPrompt = await setupActivities.renderSystemPrompt({
        definitionPrompt: input.definitionPrompt,
        cwd: runtime.cwd,
        agentType: input.agentType,
        model: input.model,
      });
    }
    if (input.forkFrom && state.messages.length === 0) {
      const { directive, ...prefix } = input.forkFrom;
      const inherited = await setupActivities.fetchConversation.executeWithOptions({ ...setupOptions, summary: `inherit ${prefix.agentId}'s conversation` }, [prefix]);
      for (const message of buildForkedMessages(inherited, worktreeNotice(state) + directive)) state.append(message);
      if (state.worktree) state.markReadStateStale();
    } else if (!input.carried) {
      state.append({ role: 'user', content: [{ type: 'text', text: input.prompt }] });
    }
    let lastStopReason: StopReason | undefined;
    for (;;) {
      if (state.turn >= input.maxTurns) {
        await subagents.stopAll(input.agentId, `its parent reached its limit of ${input.maxTurns} turns`);
        return finish('max_turns', lastAssistantText(state), {
          error: `${ErrorType.MaxTurnsExceeded}: reached the limit of ${input.maxTurns} turns before finishing.`,
          stopReason: lastStopReason,
        });
      }
      state.turn += 1;
      const outcome = await runTurn();
      switch (outcome.type) {
        case 'tools_done':
          await continueIfDue();
          continue;
        case 'final':
          lastStopReason = outcome.stopReason;
          if (await waitForInput()) continue;
          return finish('completed', outcome.text, { stopReason: outcome.stopReason });
        case 'interrupted':
          if (input.interactive && (await waitForInput())) continue;
          await subagents.stopAll(input.agentId, 'its parent was interrupted');
          return finish('interrupted', lastAssistantText(state), { error: `interrupted by ${outcome.by}: ${outcome.reason}` });
        case 'refused':
          await subagents.stopAll(input.agentId, 'its parent refused the task');
          return finish('refused', outcome.text, { stopReason: 'refusal' });
        case 'failed': {
          await subagents.stopAll(input.agentId, 'its parent failed');
          const failed = finish('failed', lastAssistantText(state), { error: outcome.error });
          throw ApplicationFailure.create({ type: 'AgentFailed', message: outcome.error, nonRetryable: true, details: [failed] });
        }
      }
    }
  };

  /** Worktree cleanup on every ending (non-cancellable; after a worker crash it runs when the workflow resumes). */
  const finishWorktree = async (): Promise<void> => {
    const worktree = state.worktree;
    if (!worktree || !result) return;
    const outcome = await CancellationScope.nonCancellable(() =>
      setupActivities.finishWorktree.executeWithOptions({ ...setupOptions, summary: 'clean up git worktree' }, [{ worktree }]),
    );
    result = { ...result, worktree: outcome };
    snapshot.result = result;
  };

  try {
    const completed = await loop();
    await finishWorktree();
    return result ?? completed;
  } catch (error) {
    if (error instanceof ApplicationFailure && error.type === 'AgentFailed' && result) {
      await finishWorktree();
      throw ApplicationFailure.create({ type: 'AgentFailed', message: error.message, nonRetryable: true, details: [result] });
    }
    if (isCancellation(error)) {
      const notice = runtime.stopNotice ?? { by: 'a cancellation request', reason: 'the workflow was cancelled' };
      const stopped = finish('cancelled', lastAssistantText(state), { error: `stopped by ${notice.by}: ${notice.reason}` });
      await CancellationScope.nonCancellable(async () => {
        // The subtree goes first, told who stopped it: this agent closes only after its children have closed.
        await subagents.stopAll(notice.by, `${notice.reason} (ancestor ${input.agentId} was stopped)`);
        await finishWorktree();
        if (input.parentAgentId) {
          await getExternalWorkflowHandle(input.parentAgentId).signal(childFinalSignal, result ?? stopped).catch(() => undefined);
        }
      });
    }
    throw error;
  }
}

/** For a fork in a worktree: inherited paths point at the parent's checkout. */
function worktreeNotice(state: AgentState): string {
  const worktree = state.worktree;
  if (!worktree) return '';
  return (
    `Note: you run in your own git worktree at ${worktree.path} (branch ${worktree.branch}). Paths in the conversation above ` +
    `refer to the parent's checkout: ${worktree.mapping.from} corresponds to ${worktree.mapping.to}. Files you saw may differ here: ` +
    'read a file again before you edit it.\n\n'
  );
}

function initialSnapshot(input: AgentWorkflowInput, state: AgentState): AgentStatusSnapshot {
  return {
    agentId: input.agentId,
    agentType: input.agentType,
    name: input.name,
    description: input.description,
    model: input.model,
    state: 'starting',
    turn: state.turn,
    maxTurns: input.maxTurns,
    currentTools: [],
    usage: state.usage,
    toolUses: state.toolUses,
    startedAtMs: state.startedAtMs,
    messageCount: state.messages.length,
    treeUsage: state.usage,
    children: [],
    acceptsSteering: true,
    pendingApprovals: 0,
  };
}

/** One model turn, or the message of a model error Temporal gave up on (non-retryable, or out of attempts). */
async function callModel(input: AgentWorkflowInput, state: AgentState): Promise<ModelCallResult | { failure: string }> {
  try {
    return await modelActivities.callModel.executeWithOptions({ ...modelOptions, summary: `model turn ${state.turn} · ${input.model}` }, [
      {
        agentId: input.agentId,
        agentType: input.agentType,
        agentName: input.name,
        runId: workflowInfo().runId,
        model: input.model,
        maxOutputTokens: input.maxOutputTokens ?? defaultMaxOutputTokens,
        messageCount: state.messages.length,
        conversationHash: state.conversationHash,
        turn: state.turn,
      },
    ]);
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      return { failure: `${error.cause.type}: ${error.cause.message}` };
    }
    throw error;
  }
}

function lastAssistantText(state: AgentState): string {
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index]!;
    if (message.role === 'assistant') return textOf(message.content);
  }
  return '';
}
