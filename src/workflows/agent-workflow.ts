import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentResult, AgentStatus, AgentStatusSnapshot, AgentWorkflowInput } from '../shared/agent';
import {
  childFinalSignal,
  conversationQuery,
  messageSignal,
  resumeStateQuery,
  statusQuery,
  stopNoticeSignal,
  treeAgentEventSignal,
  treeAgentStartedSignal,
  treeSpawnReplySignal,
  treeSpawnRequestSignal,
} from '../shared/definitions';
import { ErrorType } from '../shared/errors';
import { addTokenUsage, type StopReason, type TokenUsage } from '../shared/messages';
import type { ModelCallResult } from '../shared/model-call';
import { modelActivities, modelOptions, setupActivities } from './activity-proxies';
import type { AgentRuntime } from './agent-runtime';
import { AgentState } from './agent-state';
import { workflowNowMs } from './clock';
import { Inbox } from './inbox';
import { runToolCalls } from './run-tools';
import { sendMessageTool } from './send-message';
import { Subagents } from './subagents';
import { buildToolResultMessage, textOf, toolUsesOf } from './tool-results';
import { TreeCoordinator } from './tree-coordinator';

const defaultMaxOutputTokens = 8192;

/** One agent instance: the query loop (model call → tools → results → repeat) as a workflow. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  const state = new AgentState(input.carried);
  const isRoot = input.parentAgentId === undefined;
  const runtime: AgentRuntime = {
    input,
    state,
    lifetime: CancellationScope.current(),
    inbox: new Inbox(),
    tree: isRoot ? new TreeCoordinator(input.limits) : undefined,
    spawnReplies: new Map(),
  };
  const subagents = new Subagents(runtime);
  const snapshot: AgentStatusSnapshot = {
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
  };
  let systemPrompt = input.renderedSystemPrompt ?? '';
  let result: AgentResult | undefined;
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
  setHandler(stopNoticeSignal, (notice) => {
    runtime.stopNotice = notice;
  });
  setHandler(childFinalSignal, (childResult) => subagents.onChildFinal(childResult));
  setHandler(treeSpawnReplySignal, (reply) => {
    runtime.spawnReplies.set(reply.requestId, reply);
  });
  const tree = runtime.tree;
  if (tree) {
    setHandler(treeSpawnRequestSignal, async (request) => {
      const decision = tree.request(request.childId);
      await getExternalWorkflowHandle(request.requesterId)
        .signal(treeSpawnReplySignal, { requestId: request.requestId, granted: decision.granted, reason: decision.granted ? undefined : decision.reason })
        .catch(() => tree.finished(request.childId));
    });
    setHandler(treeAgentStartedSignal, (event) => tree.started(event.agentId, event.background));
    setHandler(treeAgentEventSignal, async (event) => {
      if (event.kind === 'finished') tree.finished(event.agentId);
      if (event.usage && tree.addUsage(event.usage)) await enforceTreeBudget(tree, input);
    });
  }

  const finish = (status: AgentStatus, finalText: string, extra: Partial<AgentResult> = {}): AgentResult => {
    undelivered.push(...runtime.inbox.drain().filter((item) => item.startsWith('<message')));
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
    if (tree) {
      if (tree.addUsage(usage)) await enforceTreeBudget(tree, input);
      return;
    }
    await getExternalWorkflowHandle(input.rootAgentId)
      .signal(treeAgentEventSignal, { agentId: input.agentId, kind: 'usage', usage })
      .catch(() => undefined);
  };

  const loop = async (): Promise<AgentResult> => {
    if (!systemPrompt) {
      systemPrompt = await setupActivities.renderSystemPrompt({
        definitionPrompt: input.definitionPrompt,
        cwd: input.cwd,
        agentType: input.agentType,
        model: input.model,
      });
    }
    if (!input.carried) state.append({ role: 'user', content: [{ type: 'text', text: input.prompt }] });

    const toolContext = { agentId: input.agentId, workspaceRoot: input.workspaceRoot, cwd: input.cwd, maxResultChars: input.maxToolResultChars };
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
      snapshot.state = 'calling_model';
      setCurrentDetails(`turn ${state.turn}/${input.maxTurns}: calling ${input.model}`);
      const response = await callModel(input, state);
      if ('failure' in response) {
        await subagents.stopAll(input.agentId, 'its parent failed');
        const failed = finish('failed', lastAssistantText(state), { error: response.failure });
        throw ApplicationFailure.create({ type: 'AgentFailed', message: response.failure, nonRetryable: true, details: [failed] });
      }
      lastStopReason = response.stopReason;
      state.addUsage(response.usage);
      await reportUsage(response.usage);
      if (response.content.length > 0) state.append({ role: 'assistant', content: response.content });
      const toolUses = toolUsesOf(response.content);

      if (response.stopReason === 'refusal') {
        // The tools of a refused turn are not run, but each still gets a result so the history stays valid.
        if (toolUses.length > 0) state.append(buildToolResultMessage(toolUses, {}, 'Not run: the model refused this turn.'));
        await subagents.stopAll(input.agentId, 'its parent refused the task');
        return finish('refused', textOf(response.content), { stopReason: 'refusal' });
      }
      if (toolUses.length === 0) {
        // A parent does not finish while background children run: it waits for their notifications.
        if (runtime.inbox.size === 0 && subagents.runningBackgroundCount > 0) {
          snapshot.state = 'waiting';
          setCurrentDetails(`waiting for ${subagents.runningBackgroundCount} background agent(s)`);
          await condition(() => runtime.inbox.size > 0 || subagents.runningBackgroundCount === 0);
        }
        if (runtime.inbox.size > 0) {
          state.append({ role: 'user', content: runtime.inbox.drain().map((text) => ({ type: 'text' as const, text })) });
          continue;
        }
        return finish('completed', textOf(response.content), { stopReason: response.stopReason });
      }

      snapshot.state = 'running_tools';
      state.toolUses += toolUses.length;
      const outcomes = await runToolCalls(toolUses, {
        pool: input.tools,
        toolContext,
        readFileState: state.readFileState,
        workflowTools: {
          Agent: (call) => subagents.spawn(call),
          SendMessage: (call) => sendMessageTool(call, runtime, subagents),
          TaskStop: (call) => subagents.stopTask(String(call.input.task_id ?? ''), input.agentId, 'its parent stopped it'),
        },
        onStart: (call) => {
          snapshot.lastTool = call.name;
          snapshot.currentTools = [...snapshot.currentTools, call.name];
          setCurrentDetails(`turn ${state.turn}/${input.maxTurns}: running ${call.name}`);
        },
        onReadFiles: (records) => state.recordReadFiles(records),
        onReplacement: (replacement) => {
          state.contentReplacements[replacement.toolUseId] = replacement;
        },
      });
      snapshot.currentTools = [];
      state.append(buildToolResultMessage(toolUses, outcomes, 'Tool call did not complete.', runtime.inbox.drain()));
    }
  };

  try {
    return await loop();
  } catch (error) {
    if (isCancellation(error)) {
      const stopped = finish('cancelled', lastAssistantText(state), {
        error: runtime.stopNotice ? `stopped by ${runtime.stopNotice.by}: ${runtime.stopNotice.reason}` : 'stopped (workflow cancelled)',
      });
      if (input.parentAgentId) {
        const parentId = input.parentAgentId;
        await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(parentId).signal(childFinalSignal, stopped)).catch(() => undefined);
      }
    }
    throw error;
  }
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

/** At the tree's token budget: stop every running background agent, saying why. */
async function enforceTreeBudget(tree: TreeCoordinator, input: AgentWorkflowInput): Promise<void> {
  const reason = `the tree's token budget of ${input.limits.treeTokenBudget} tokens was reached (${tree.tokensUsed} used)`;
  for (const agentId of tree.runningBackgroundAgents()) {
    const handle = getExternalWorkflowHandle(agentId);
    await handle.signal(stopNoticeSignal, { by: 'budget', reason }).catch(() => undefined);
    await handle.cancel().catch(() => undefined);
  }
}

function lastAssistantText(state: AgentState): string {
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index]!;
    if (message.role === 'assistant') return textOf(message.content);
  }
  return '';
}
