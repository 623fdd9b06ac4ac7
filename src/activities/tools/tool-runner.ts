/** The shared frame of every tool: validate input, run, turn refusals into error results, cap the size. */
import type { z } from 'zod';
import type { ToolCallInput, ToolCallResult } from '../../shared/tools/tools';
import { formatInputError } from './input';
import { limitResult } from './result-limit';
import { resultsDirOf, type ToolEnv } from './tool-env';
import { isSystemError, ToolCancelled, ToolRefusal } from './tool-error';

/** A tool's core function, independent of Temporal. */
export type ToolRunner = (call: ToolCallInput, env: ToolEnv) => Promise<ToolCallResult>;

type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/** Builds a {@link ToolRunner} from an input schema and the tool's body. */
export function defineTool<Schema extends ObjectSchema>(
  toolName: string,
  schema: Schema,
  run: (input: z.output<Schema>, call: ToolCallInput, env: ToolEnv) => Promise<ToolCallResult>,
): ToolRunner {
  const allowedFields = Object.keys(schema.shape);
  return async (call, env) => {
    const parsed = schema.safeParse(call.input);
    const result = parsed.success
      ? await run(parsed.data, call, env).catch((error: unknown) => failureResult(toolName, error))
      : { content: formatInputError(toolName, parsed.error, allowedFields), isError: true };
    return limitResult(result, call, resultsDirOf(env));
  };
}

/** Refusals, cancellation and file-system errors become error results; anything else is a bug and is thrown. */
function failureResult(toolName: string, error: unknown): ToolCallResult {
  if (error instanceof ToolRefusal) return { content: error.message, isError: true };
  if (error instanceof ToolCancelled) return { content: `${toolName} was cancelled.`, isError: true };
  if (isSystemError(error)) return { content: `${toolName} failed: ${error.message}`, isError: true };
  throw error;
}
