import { CancellationScope, CancelledFailure, isCancellation } from '@temporalio/workflow';
import type { StopReason, ToolUseBlock } from '../../shared/model/messages';
import { buildToolResultMessage, textOf, toolUsesOf, type ToolOutcome } from '../../shared/tools/tool-results';
import { toolCallSummary } from '../../shared/tools/tool-summary';
import type { BudgetAction } from '../../shared/budget/budget';
import { settleModelCall } from '../budget/model-budget';
import { measureRequest } from '../context/context-meter';
import { continuedText, handleCutOffTurn } from '../context/truncation';
import { toolPool } from '../tools/extra-tools';
import { preReadLookup, preReadRequest } from '../tools/pre-reads';
import { runToolCalls } from '../tools/run-tools';
import { structuredTurnEnding } from '../tools/structured-output';
import { stopNoticeOnItsWay, waitForStopNotice } from '../tree/stop-delivery';
import type { AgentParts } from './agent-parts';
import { callModelWithinBudget, maxOutputTokens } from './turn-model-call';
import { toolRunContext } from './tool-run-context';
import { checkpointBeforeFirstWrite } from '../rewind/checkpoint-turn';
import { deliverInbox } from '../tools/hook-events';
import type { Interruption } from './turn-control';
import { applyModelCallLook } from './settings-reload';

/** What the model sees in place of the rest of an interrupted turn. */
export const interruptedText = '[Request interrupted by user]';

/** How one turn (model call and its tools, in the turn's abort domain) ended. */
export type TurnOutcome =
  | { type: 'final'; text: string; stopReason: StopReason }
  | { type: 'tools_done' }
  /** A valid StructuredOutput call (docs/tools.md, "Structured output"): the agent's answer. */
  | { type: 'structured'; value: unknown }
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
    // Nothing to await when no compaction is due.
    if (agent.compaction.due(agent)) await agent.compaction.compactIfDue(agent);
    progress.callingModel();
    inbox.markSent();
    const sent = state.messages.length;
    // File reads the model call may start (src/workflows/tools/pre-reads.ts).
    const pool = toolPool(agent);
    const preRead = preReadRequest(agent, pool);
    // A budgeted tree's call reserves first (docs/budgets.md); one that cannot does not start.
    const called = await callModelWithinBudget(agent, preRead);
    if (called.type !== 'answered') return called;
    const { response, reservation } = called;
    // A settings file changed (the call looked, docs/hooks.md): the new settings apply to this turn's tools.
    const settingsChanged = response.settingsLook ? await applyModelCallLook(agent, response) : false;
    measureRequest(state, response.usage, sent);
    state.addUsage(response.usage);
    if (response.content.length > 0) state.append({ role: 'assistant', content: response.content });
    toolUses = toolUsesOf(response.content);
    await settleModelCall(agent, reservation, response, maxOutputTokens(agent));
    if (reservation.kind === 'none' && agent.input.limits.treeTokenBudget !== undefined)
      await agent.tree.reportUsage(response.usage);
    if (response.stopReason === 'refusal') {
      // The tools of a refused turn are not run, but each still gets a result so the history stays valid.
      if (toolUses.length > 0)
        state.append(buildToolResultMessage(toolUses, {}, 'Not run: the model refused this turn.'));
      return { type: 'refused', text: textOf(response.content) };
    }
    if (response.stopReason === 'max_tokens') {
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
    state.turns.noteTools(toolUses.map((toolUse) => toolUse.name));
    await checkpointBeforeFirstWrite(
      agent,
      toolUses.map((toolUse) => toolUse.name),
    );
    const readWithCall: string[] = [];
    // Reads started under the old settings run again under the new ones (their hooks and rules).
    const lookup = settingsChanged
      ? undefined
      : preReadLookup(response, preRead, toolUses, (call) => readWithCall.push(toolCallSummary(call.name, call.input)));
    await runToolCalls(toolUses, toolRunContext(agent, pool, lookup), outcomes);
    state.noteReadWithCall(readWithCall);
    // A cancelled tool may still return normally (Bash reports its output): the turn's cancellation decides.
    if (CancellationScope.current().consideredCancelled)
      throw new CancelledFailure('the turn was cancelled while its tools ran');
    progress.toolsDone();
    const delivering = deliverInbox(agent, inbox);
    const delivered = delivering instanceof Promise ? await delivering : delivering;
    state.append(buildToolResultMessage(toolUses, outcomes, 'Tool call did not complete.', delivered));
    answered = true;
    // A valid StructuredOutput call ends the agent; its last attempt used fails it.
    const structured = structuredTurnEnding(agent);
    if (structured) return structured;
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
