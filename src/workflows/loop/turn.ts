import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { defaultMaxOutputTokens } from '../../shared/protocol/limits';
import type { StopReason, ToolUseBlock } from '../../shared/model/messages';
import type { ModelCallInput, ModelCallResult, PreReadRequest } from '../../shared/model/model-call';
import { textHash } from '../../shared/model/conversation-hash';
import { buildToolResultMessage, textOf, toolUsesOf, type ToolOutcome } from '../../shared/tools/tool-results';
import { modelActivities, modelOptions } from '../runtime/activity-proxies';
import type { AgentParts } from './agent-parts';
import { measureRequest } from '../context/context-meter';
import { classificationOf, extraToolRoutes, isConcurrencySafe, toolPool } from '../tools/extra-tools';
import { runToolCalls, type ToolRunContext } from '../tools/run-tools';
import { sendMessageTool } from '../tree/send-message';
import { afterTool, beforeTool, hooksMayRun } from '../tools/hooks';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import { taskOutputTool } from '../tree/task-output';
import { continuedText, handleCutOffTurn, truncatedTurnsPatch } from '../context/truncation';
import type { Interruption } from './turn-control';
import { hasPatch, onPatchBaseline } from '../runtime/patches';
import type { TreeSettings } from '../../shared/agents/tree-settings';
import { withDefinitionDomains } from '../../shared/policy/sandbox';
import type { ToolContext } from '../../shared/tools/tools';
import { stopNoticeOnItsWay, waitForStopNotice } from '../tree/stop-delivery';
import { abortLocallyWhenCancelled, localModelAbortPatch } from '../runtime/local-abort';
import { preReadLookup, preReadRequest, readWithLastCallSummary } from '../tools/pre-reads';
import type { PreReadLookup } from '../tools/tool-types';
import { toolCallSummary } from '../../shared/tools/tool-summary';
import type { BudgetAction } from '../../shared/budget/budget';
import { releaseModelCall, reserveModelCall, settleModelCall, type CallReservation } from '../budget/model-budget';

/** Marks runs where a turn cancelled while its tools ran ends interrupted even when every tool returned normally. */
export const cancelledTurnPatch = 'cancelled-turn-is-interrupted';

/** Fresh reservations a turn asks for when its call's retries used up the one before. */
const maxBudgetRetries = 3;

/** What the model sees in place of the rest of an interrupted turn. */
export const interruptedText = '[Request interrupted by user]';

/** How one turn (model call and its tools, in the turn's abort domain) ended. */
export type TurnOutcome =
  | { type: 'final'; text: string; stopReason: StopReason }
  | { type: 'tools_done' }
  | { type: 'refused'; text: string }
  | { type: 'truncated'; text: string }
  | { type: 'failed'; error: string }
  | { type: 'budget'; reason: string; action: BudgetAction }
  | ({ type: 'interrupted' } & Interruption);

/** One turn in its own abort domain: every tool_use gets a result, also when interrupted or stopped. */
export async function runTurn(agent: AgentParts): Promise<TurnOutcome> {
  const { state, inbox, progress, children, control } = agent;
  let toolUses: ToolUseBlock[] = [];
  const outcomes: Record<string, ToolOutcome> = {};
  let answered = false;
  const childrenBefore = children.ids();
  const body = async (): Promise<TurnOutcome> => {
    // Nothing to await when no compaction is due (patch baseline, src/workflows/runtime/patches.ts).
    if (!onPatchBaseline() || agent.compaction.due(agent)) await agent.compaction.compactIfDue(agent);
    progress.callingModel();
    inbox.markSent();
    const sent = state.messages.length;
    // File reads the model call may start (src/workflows/tools/pre-reads.ts).
    const pool = toolPool(agent);
    const preRead = preReadRequest(agent, pool);
    // A budgeted tree's call reserves first (docs/budgets.md); one that cannot does not start.
    let reservation = await reserveModelCall(agent, maxOutputTokens(agent));
    if (reservation.kind === 'refused')
      return { type: 'budget', reason: reservation.grant.reason, action: reservation.grant.action };
    let response = await callModel(agent, preRead, reservation);
    // Retries that used up their reservation (calls cut after message_start) ask the ledger again.
    for (
      let again = 0;
      'failure' in response && response.failure.startsWith(ErrorType.BudgetExhausted) && again < maxBudgetRetries;
      again++
    ) {
      reservation = await reserveModelCall(agent, maxOutputTokens(agent));
      if (reservation.kind === 'refused')
        return { type: 'budget', reason: reservation.grant.reason, action: reservation.grant.action };
      response = await callModel(agent, preRead, reservation);
    }
    if ('failure' in response) return { type: 'failed', error: response.failure };
    measureRequest(state, response.usage, sent);
    state.addUsage(response.usage);
    if (response.content.length > 0) state.append({ role: 'assistant', content: response.content });
    toolUses = toolUsesOf(response.content);
    await settleModelCall(agent, reservation, response, maxOutputTokens(agent));
    if (reservation.kind === 'none' && (!onPatchBaseline() || agent.input.limits.treeTokenBudget !== undefined))
      await agent.tree.reportUsage(response.usage);
    if (response.stopReason === 'refusal') {
      // The tools of a refused turn are not run, but each still gets a result so the history stays valid.
      if (toolUses.length > 0)
        state.append(buildToolResultMessage(toolUses, {}, 'Not run: the model refused this turn.'));
      return { type: 'refused', text: textOf(response.content) };
    }
    if (response.stopReason === 'max_tokens' && hasPatch(truncatedTurnsPatch)) {
      return handleCutOffTurn(
        agent,
        toolUses,
        response.content,
        reservation.kind === 'granted' ? reservation.maxOutputTokens : maxOutputTokens(agent),
      );
    }
    if (toolUses.length === 0) {
      return {
        type: 'final',
        text: continuedText(state.messages, textOf(response.content), response.content.length > 0),
        stopReason: response.stopReason,
      };
    }
    progress.runningTools();
    state.countToolUses(toolUses.length);
    const readWithCall: string[] = [];
    const lookup = preReadLookup(response, preRead, toolUses, (call) =>
      readWithCall.push(toolCallSummary(call.name, call.input)),
    );
    await runToolCalls(toolUses, toolRunContext(agent, pool, lookup), outcomes);
    state.noteReadWithCall(readWithCall);
    // A cancelled tool may still return normally (Bash reports its output): the turn's cancellation decides.
    if (CancellationScope.current().consideredCancelled && hasPatch(cancelledTurnPatch))
      throw new CancelledFailure('the turn was cancelled while its tools ran');
    progress.toolsDone();
    state.append(buildToolResultMessage(toolUses, outcomes, 'Tool call did not complete.', inbox.drain()));
    answered = true;
    // A hook answered `continue: false` (docs/hooks.md): the agent stops here, with the hook's reason.
    if (state.hooks.stop !== undefined)
      return { type: 'final', text: `Stopped by a hook: ${state.hooks.stop}`, stopReason: 'end_turn' };
    return { type: 'tools_done' };
  };
  // Interrupted: foreground children of this turn are stopped (cascading), and every tool_use is answered.
  const onInterrupt = async (interruption: Interruption): Promise<TurnOutcome> => {
    progress.toolsDone();
    await children.stopForegroundStartedSince(childrenBefore, interruption.by, 'its parent turn was interrupted');
    if (toolUses.length > 0) {
      state.append(
        buildToolResultMessage(toolUses, outcomes, `Interrupted by ${interruption.by} before this tool finished.`, [
          interruptedText,
        ]),
      );
    } else {
      state.append({ role: 'user', content: [{ type: 'text', text: interruptedText }] });
    }
    answered = true;
    return { type: 'interrupted', ...interruption };
  };
  try {
    return await control.runTurn(body, onInterrupt);
  } catch (error) {
    // Stopped mid-turn: the transcript still pairs every tool_use, with who stopped it.
    if (isCancellation(error) && toolUses.length > 0 && !answered) {
      if (stopNoticeOnItsWay(control, agent.input.parentAgentId !== undefined)) await waitForStopNotice(control);
      const notice = control.stopNoticeOrDefault();
      const stoppedBy = `Stopped by ${notice.by}: ${notice.reason}`;
      state.append(
        buildToolResultMessage(toolUses, outcomes, `${stoppedBy}. The tool did not finish.`, [`[${stoppedBy}]`]),
      );
    }
    throw error;
  }
}

/** What running this agent's tools needs: its pool, its place, the workflow-run tools, approvals and bookkeeping. */
function toolRunContext(
  agent: AgentParts,
  pool: readonly string[],
  preRead: PreReadLookup | undefined,
): ToolRunContext {
  const { input, state, children, approvals, progress } = agent;
  return {
    pool,
    readOnlyBash: input.readOnlyBash === true,
    ...(input.toolRules ? { toolRules: input.toolRules } : {}),
    ...(state.settings?.permissions ? { permissionRules: state.settings.permissions } : {}),
    // Without hooks for them (patch baseline), no step per call for PreToolUse and PostToolUse.
    ...(hooksMayRun(agent, 'PreToolUse')
      ? {
          beforeTool: (call: ToolUseBlock) =>
            beforeTool(agent, call, (reason) => ({
              isError: true,
              content: errorText(
                ErrorType.HookBlocked,
                `a PreToolUse hook refused this call; nothing was run. The hook said: ${reason}`,
              ),
            })),
        }
      : {}),
    ...(hooksMayRun(agent, 'PostToolUse')
      ? { afterTool: (call: ToolUseBlock, outcome: ToolOutcome) => afterTool(agent, call, outcome) }
      : {}),
    onDenied: (call) => state.recordDenial(call.name),
    toolContext: toolContextOf(state, input),
    readFileState: state.readFileState,
    workspaceWorker: input.workspaceWorker,
    ...(state.extraTools?.taskQueues ? { toolTaskQueues: state.extraTools.taskQueues } : {}),
    workflowTools: {
      Agent: (call) => agent.agentTool.call(call),
      SendMessage: (call) => sendMessageTool(call, input, children, agent.tree),
      TaskStop: (call) => children.stop(String(call.input.task_id ?? ''), input.agentId, 'its parent stopped it'),
      TaskOutput: (call) => taskOutputTool(call, children),
      ...agent.board.workflowTools(),
      ...extraToolRoutes(agent),
    },
    // On the patch baseline a call the mode allows or denies outright is decided without awaiting.
    authorize: (call, ruleOverride) => {
      const classification = classificationOf(agent, call.name);
      const override = ruleOverride ?? sandboxedBashAllowed(state.settings, call.name);
      const now = onPatchBaseline() ? approvals.decideNow(call, classification, override) : 'ask';
      return now === 'ask' ? approvals.authorize(call, classification, override) : now.outcome;
    },
    authorizedNow: (call, ruleOverride) => {
      const override = ruleOverride ?? sandboxedBashAllowed(state.settings, call.name);
      const now = onPatchBaseline() ? approvals.decideNow(call, classificationOf(agent, call.name), override) : 'ask';
      return now !== 'ask' && now.outcome === undefined ? 'go' : 'later';
    },
    concurrencySafe: (name) => isConcurrencySafe(agent, name),
    onStart: (call) => progress.toolStarted(call.name),
    onReadFiles: (records) => state.recordReadFiles(records),
    onReplacement: (replacement) => state.recordReplacement(replacement),
    ...(preRead ? { preRead } : {}),
  };
}

/** The agent's tool context; a definition's `WebFetch(domain:…)` rules also open those hosts to its sandboxed Bash. */
function toolContextOf(state: AgentParts['state'], input: AgentParts['input']): ToolContext {
  const context = state.toolContext(input.agentId, input.maxToolResultChars);
  const sandbox = withDefinitionDomains(context.sandbox, input.toolRules?.allow);
  return sandbox ? { ...context, sandbox } : context;
}

/** Bash needs no approval where the tree's settings say sandboxed commands run without one (Claude Code's `autoAllowBashIfSandboxed`). */
export const sandboxAutoAllowPatch = 'sandbox-auto-allow';

function sandboxedBashAllowed(settings: TreeSettings | undefined, tool: string): 'allow' | undefined {
  return tool === 'Bash' && settings?.sandbox?.autoAllowBashIfSandboxed === true && hasPatch(sandboxAutoAllowPatch)
    ? 'allow'
    : undefined;
}

function maxOutputTokens({ input }: Pick<AgentParts, 'input'>): number {
  return input.maxOutputTokens ?? defaultMaxOutputTokens;
}

/** The new messages a model call carries, and with all of them (a run's first call) what else its worker needs (docs/architecture.md). */
function tailOf(state: AgentParts['state'], tools: string[]): Pick<ModelCallInput, 'tail' | 'opening'> {
  const tail = state.modelCallTail();
  if (!tail) return {};
  return tail.from === 0 ? { tail, opening: { tools, systemPromptHash: textHash(state.systemPrompt) } } : { tail };
}

/** One model turn, or the message of a model error Temporal gave up on (non-retryable, or out of attempts). */
async function callModel(
  agent: AgentParts,
  preRead: PreReadRequest | undefined,
  reservation: CallReservation,
): Promise<ModelCallResult | { failure: string }> {
  const { input, state } = agent;
  let completed = false;
  // A stop or an interrupt aborts the call on the worker at once, not at its next heartbeat (patch localModelAbortPatch).
  const ended = hasPatch(localModelAbortPatch) ? abortLocallyWhenCancelled() : undefined;
  try {
    const summary = `model turn ${state.turn} · ${input.model}${readWithLastCallSummary(state.takeReadWithLastCall())}`;
    const result = await modelActivities.callModel.executeWithOptions({ ...modelOptions, summary }, [
      {
        agentId: input.agentId,
        agentType: input.agentType,
        agentName: input.name,
        runId: workflowInfo().runId,
        model: input.model,
        maxOutputTokens: reservation.kind === 'granted' ? reservation.maxOutputTokens : maxOutputTokens({ input }),
        ...(reservation.kind === 'granted' ? { budget: reservation.budget } : {}),
        ...(input.thinking ? { thinking: input.thinking } : {}),
        ...(input.effort ? { effort: input.effort } : {}),
        messageCount: state.messages.length,
        conversationHash: state.conversationHash,
        turn: state.turn,
        ...tailOf(state, input.tools),
        ...(preRead ? { preRead } : {}),
      },
    ]);
    completed = true;
    return result;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      return { failure: `${error.cause.type}: ${error.cause.message}` };
    }
    throw error;
  } finally {
    ended?.();
    // A call that failed or was cut gives back what its attempts did not use.
    if (!completed) await releaseModelCall(agent, reservation);
  }
}
