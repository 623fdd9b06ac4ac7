import { ErrorType, errorText } from '../protocol/errors';
import { scriptLimits } from '../scripts/script-run';
import type { ToolDescriptor } from './extra-tools';

// StructuredOutput (docs/tools.md, "Structured output"): how an agent started with `outputSchema` gives its answer.

/** The tool's name, as Claude Code's. */
export const structuredOutputToolName = 'StructuredOutput';

/** Attempts (invalid calls, or turns ended in text) before the agent fails. */
export const structuredOutputAttempts = scriptLimits.schemaAttempts;

/** What the model reads about the tool. */
export const structuredOutputDescription =
  'Call this exactly once with your final answer as an object matching the schema; it ends your task.';

/** The line the agent's first message ends with. */
export const structuredOutputInstruction =
  `When you have finished, give your final answer by calling the ${structuredOutputToolName} tool ` +
  'with an object matching its schema; a text answer is not read.';

/** The tool in the agent's extra tools: its input schema is the agent's schema; the workflow answers it. */
export function structuredOutputDescriptor(schema: Record<string, unknown>): ToolDescriptor {
  return {
    definition: { name: structuredOutputToolName, description: structuredOutputDescription, input_schema: schema },
    // Not read-only: two calls of one turn run one after the other, so the first valid one is the answer.
    classification: { readOnly: false, needsApproval: false, retrySafe: true },
    runner: { kind: 'structuredOutput' },
  };
}

/** Input of the `validateStructuredOutput` activity: a StructuredOutput call's input against the agent's schema. */
export interface ValidateStructuredOutputInput {
  schema: Record<string, unknown>;
  value: unknown;
}

/** Valid, or ajv's errors as one line of text. */
export type StructuredOutputVerdict = { ok: true } | { ok: false; errors: string };

/** Input of the `checkOutputSchema` activity. */
export interface CheckOutputSchemaInput {
  schema: unknown;
}

/** The schema is usable, or the refusal (schemaPreflight's, or ajv's meta-schema and compile errors). */
export type OutputSchemaCheck = { ok: true } | { ok: false; refusal: string };

/** The tool result of an invalid call: what was wrong, and how many attempts are left. */
export function invalidOutputText(errors: string, attempt: number): string {
  const left = structuredOutputAttempts - attempt;
  return (
    `${errorText(ErrorType.InvalidToolInput, `the output does not match the schema: ${errors}.`)} ` +
    (left > 0
      ? `Call ${structuredOutputToolName} again with a corrected object (${left} attempt(s) left).`
      : 'No attempts are left: the task has failed.')
  );
}

/** The user message after a turn that ended in text without a valid call. */
export function structuredOutputReminder(attempt: number): string {
  const left = structuredOutputAttempts - attempt;
  return (
    `You must call the ${structuredOutputToolName} tool to give your final answer, as an object matching its schema; ` +
    `a text answer is not read (${left} attempt(s) left).`
  );
}

/** Why an agent that used up its attempts failed; `last` is the last validation failure, if a call was made. */
export function structuredOutputFailure(last: string | undefined): string {
  return errorText(
    ErrorType.StructuredOutputMissing,
    `no valid ${structuredOutputToolName} call after ${structuredOutputAttempts} attempts` +
      (last ? `; the last one failed validation: ${last}` : ': the agent answered in text each time') +
      '. Make the schema simpler or the prompt clearer about the fields it needs.',
  );
}
