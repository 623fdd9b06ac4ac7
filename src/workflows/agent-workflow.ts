import { ActivityFailure, ApplicationFailure, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentStatus, AgentStatusSnapshot, AgentWorkflowInput } from '../shared/agent';
import { conversationQuery, statusQuery } from '../shared/definitions';
import { ErrorType } from '../shared/errors';
import type { StopReason } from '../shared/messages';
import type { ModelCallResult } from '../shared/model-call';
import { modelActivities, modelOptions, setupActivities } from './activity-proxies';
import { AgentState } from './agent-state';
import { workflowNowMs } from './clock';
import { runToolCalls } from './run-tools';
import { buildToolResultMessage, textOf, toolUsesOf } from './tool-results';

const defaultMaxOutputTokens = 8192;

/** One agent instance: the query loop (model call → tools → results → repeat) as a workflow. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentResult> {
  const state = new AgentState(input.carried);
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
  };
  let systemPrompt = input.renderedSystemPrompt ?? '';

  setHandler(conversationQuery, ({ from }) => ({
    systemPrompt,
    tools: input.tools,
    messages: state.messages.slice(Math.max(0, from)),
    from,
    total: state.messages.length,
  }));
  setHandler(statusQuery, () => ({ ...snapshot, turn: state.turn, usage: state.usage, toolUses: state.toolUses, messageCount: state.messages.length }));

  const finish = (status: AgentStatus, finalText: string, extra: Partial<AgentResult> = {}): AgentResult => {
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
      ...extra,
    };
    snapshot.state = 'finished';
    snapshot.result = result;
    setCurrentDetails(`**${status}** after ${state.turn} turns, ${state.toolUses} tool uses`);
    return result;
  };

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
      return finish('max_turns', lastAssistantText(state), {
        error: `${ErrorType.MaxTurnsExceeded}: reached the limit of ${input.maxTurns} turns before finishing.`,
        stopReason: lastStopReason,
      });
    }
    state.turn += 1;
    snapshot.state = 'calling_model';
    setCurrentDetails(`turn ${state.turn}/${input.maxTurns}: calling ${input.model}`);
    let response: ModelCallResult;
    try {
      response = await modelActivities.callModel.executeWithOptions(
        { ...modelOptions, summary: `model turn ${state.turn} · ${input.model}` },
        [
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
        ],
      );
    } catch (error) {
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
        const result = finish('failed', lastAssistantText(state), { error: `${error.cause.type}: ${error.cause.message}` });
        throw ApplicationFailure.create({ type: 'AgentFailed', message: result.error, nonRetryable: true, details: [result] });
      }
      throw error;
    }
    lastStopReason = response.stopReason;
    state.addUsage(response.usage);
    if (response.content.length > 0) state.append({ role: 'assistant', content: response.content });
    const toolUses = toolUsesOf(response.content);

    if (response.stopReason === 'refusal') {
      // The tools of a refused turn are not run, but each still gets a result so the history stays valid.
      if (toolUses.length > 0) state.append(buildToolResultMessage(toolUses, {}, 'Not run: the model refused this turn.'));
      return finish('refused', textOf(response.content), { stopReason: 'refusal' });
    }
    if (toolUses.length === 0) return finish('completed', textOf(response.content), { stopReason: response.stopReason });

    snapshot.state = 'running_tools';
    state.toolUses += toolUses.length;
    const outcomes = await runToolCalls(toolUses, {
      pool: input.tools,
      toolContext,
      readFileState: state.readFileState,
      workflowTools: {},
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
    state.append(buildToolResultMessage(toolUses, outcomes, 'Tool call did not complete.'));
  }
}

function lastAssistantText(state: AgentState): string {
  for (let index = state.messages.length - 1; index >= 0; index--) {
    const message = state.messages[index]!;
    if (message.role === 'assistant') return textOf(message.content);
  }
  return '';
}
