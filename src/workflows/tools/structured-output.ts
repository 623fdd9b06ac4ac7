import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../shared/agents/agent';
import type { ToolUseBlock } from '../../shared/model/messages';
import { ErrorType, errorText, messageOf } from '../../shared/protocol/errors';
import { noExtraTools } from '../../shared/tools/extra-tools';
import type { ToolOutcome } from '../../shared/tools/tool-results';
import {
  invalidOutputText,
  structuredOutputDescriptor,
  structuredOutputFailure,
  structuredOutputReminder,
  structuredOutputToolName,
} from '../../shared/tools/structured-output';
import type { AgentState } from '../loop/agent-state';
import type { Inbox } from '../loop/inbox';
import { withDelivered } from './hook-events';
import type { HookedAgent } from './hooks';
import { structuredOutputActivities } from '../runtime/activity-proxies';

// StructuredOutput (docs/tools.md, "Structured output"): an agent with `outputSchema` answers by a valid call of it.
// A valid call ends the agent after its turn's tool calls have their results (every call of that batch runs);
// an invalid call, or a turn ended in text, uses one of its attempts; the last one used fails the agent.

/** What StructuredOutput needs of an agent. */
interface StructuredAgent {
  readonly input: AgentWorkflowInput;
  readonly state: AgentState;
}

/** How a turn with StructuredOutput calls ends the agent (the query loop's turn outcomes). */
export type StructuredEnding = { type: 'structured'; value: unknown } | { type: 'failed'; error: string };

/** Run setup: checks the schema and puts StructuredOutput in the agent's extra tools, once; returns why it cannot run. */
export async function adoptStructuredOutputTool({ input, state }: StructuredAgent): Promise<string | undefined> {
  const schema = input.outputSchema;
  // A fork of a schema agent keeps its parent's tools (one request prefix) but has no schema of its own.
  if (!schema) return undefined;
  const current = state.extraTools;
  const named = current?.descriptors.find((descriptor) => descriptor.definition.name === structuredOutputToolName);
  if (named?.runner.kind === 'structuredOutput') return undefined;
  if (named) {
    return errorText(
      ErrorType.InvalidOutputSchema,
      `the agent has a tool of its own named ${structuredOutputToolName}, the name its structured answer needs; rename that tool.`,
    );
  }
  const check = await structuredOutputActivities.checkOutputSchema({ schema });
  if (!check.ok) return check.refusal;
  // Its MCP servers, if it has any, still start after it (src/workflows/tools/extra-tools.ts).
  const base = current ?? { ...noExtraTools(), ...(input.mcp ? { awaitingMcp: true as const } : {}) };
  state.adoptExtraTools({ ...base, descriptors: [...base.descriptors, structuredOutputDescriptor(schema)] });
  return undefined;
}

/** Runs one StructuredOutput call: validated by the activity; a valid one becomes the agent's answer. */
export async function submitStructuredOutput(
  { input, state }: StructuredAgent,
  call: ToolUseBlock,
): Promise<ToolOutcome> {
  const record = state.structuredOutput;
  if (!input.outputSchema) {
    return {
      isError: true,
      content: errorText(
        ErrorType.ToolNotAllowed,
        `${structuredOutputToolName} gives the answer of the agent that was given a schema, not of a fork of it: answer in text.`,
      ),
    };
  }
  if (record.accepted) return { isError: true, content: 'Your answer was already accepted; this call was ignored.' };
  if (record.exhausted) return { isError: true, content: 'No attempts are left: the task has failed.' };
  let verdict;
  try {
    verdict = await structuredOutputActivities.validateStructuredOutput({
      schema: input.outputSchema,
      value: call.input,
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Not the model's fault: no attempt is used.
    const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
    return {
      isError: true,
      content: `${structuredOutputToolName} could not be checked (${messageOf(cause)}); call it again.`,
    };
  }
  if (verdict.ok) {
    record.accept(call.input);
    return { isError: false, content: 'Your answer was accepted; your task is complete.' };
  }
  return { isError: true, content: invalidOutputText(verdict.errors, record.countFailure(verdict.errors)) };
}

/** After a turn's tool results: the agent's answer, or its failure once its attempts are used up; else undefined. */
export function structuredTurnEnding({ input, state }: StructuredAgent): StructuredEnding | undefined {
  if (!input.outputSchema) return undefined;
  const record = state.structuredOutput;
  if (record.accepted) return { type: 'structured', value: record.accepted.value };
  if (record.exhausted) return { type: 'failed', error: structuredOutputFailure(record.lastFailure) };
  return undefined;
}

/** A turn ended in text: an agent with `outputSchema` is reminded (true) or fails (its error); undefined for others. */
export function remindOfStructuredOutput(
  agent: StructuredAgent & HookedAgent & { readonly inbox: Inbox },
): Reminder | Promise<Reminder> {
  const { input, state, inbox } = agent;
  if (!input.outputSchema) return undefined;
  const record = state.structuredOutput;
  // A hook's `continue: false` ends the turn: it leaves no answer, and a reminder would go against the hook.
  if (state.hooks.stop !== undefined) {
    return {
      type: 'failed',
      error: errorText(
        ErrorType.StructuredOutputMissing,
        `a hook stopped the agent before it called ${structuredOutputToolName}: ${state.hooks.stop}`,
      ),
    };
  }
  const attempt = record.countFailure();
  if (record.exhausted) return { type: 'failed', error: structuredOutputFailure(record.lastFailure) };
  // Messages that came meanwhile go with the reminder, as with a turn's tool results (UserPromptSubmit first).
  return withDelivered(agent, inbox, (texts): Reminder => {
    const waiting = texts.map((text) => ({ type: 'text' as const, text }));
    state.append({ role: 'user', content: [{ type: 'text', text: structuredOutputReminder(attempt) }, ...waiting] });
    return { type: 'reminded' };
  });
}

/** What a text answer of an agent with `outputSchema` leads to; undefined for other agents. */
type Reminder = { type: 'reminded' } | { type: 'failed'; error: string } | undefined;
