// A team's own tool, defined on the worker: one activity type per tool, input checked by its zod schema (docs/tools.md).
import { msToNumber } from '@temporalio/common/lib/time.js';
import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import { isCustomToolName, parseTaskQueueName } from './custom-tools';
import type { ToolDescriptor } from './extra-tools';

/** What a custom tool's `run` is given besides its input. */
export interface CustomToolContext {
  /** The calling agent (its workflow ID). */
  agentId: string;
  /** The model's tool_use id of this call. */
  toolUseId: string;
  /** The agent's working directory and the directory its file tools may not leave (absolute). */
  cwd: string;
  workspaceRoot: string;
  /** Aborted when the call is cancelled (the agent is interrupted or stopped) or times out. */
  signal: AbortSignal;
  /** Reports progress (the runtime already heartbeats every second while `run` is pending). */
  heartbeat(details?: unknown): void;
  /** 1 for the first attempt; more only for idempotent or read-only tools. */
  attempt: number;
}

/** What `run` returns: the tool_result text, or the text and whether it is an error the model should see. */
export type CustomToolOutput = string | { content: string; isError?: boolean };

/** The options of {@link defineTool}. */
export interface CustomToolOptions<Schema extends z.ZodType> {
  /** The name the model calls: letters, digits, `_` and `-`, at most 64; not a runtime tool and not `mcp__…`. */
  name: string;
  /** What the tool does and when to use it (the model reads this). */
  description: string;
  /** zod schema of the input (an object schema); its JSON Schema is what the model sees. */
  input: Schema;
  /** Runs one call; a thrown error becomes an error tool_result (CustomToolFailed) unless the tool is retried. */
  run(input: z.output<Schema>, context: CustomToolContext): Promise<CustomToolOutput> | CustomToolOutput;
  /** Changes nothing: runs side by side with other read-only calls and needs no approval (default false). */
  readOnly?: boolean;
  /** A call needs approval unless the permission mode allows it (default: `!readOnly`). */
  needsApproval?: boolean;
  /** Safe to run again after a worker crash: retried up to 3 times (default: `readOnly`); otherwise at most once, like Bash. */
  idempotent?: boolean;
  /** Task queue of its activity (a separate worker pool); default: the agent's own. */
  taskQueue?: string;
  /** Time limit of one attempt (default 10 minutes). */
  timeout?: Duration;
}

/** A custom tool as the worker registers it. */
export interface CustomTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema sent to the model. */
  readonly inputSchema: Record<string, unknown>;
  readonly readOnly: boolean;
  readonly needsApproval: boolean;
  readonly idempotent: boolean;
  readonly taskQueue?: string;
  readonly timeoutMs: number;
  /** Validates the model's input: the parsed value, or the problems in words. */
  parse(input: unknown): { ok: true; value: unknown } | { ok: false; problems: string[] };
  run(input: unknown, context: CustomToolContext): Promise<CustomToolOutput> | CustomToolOutput;
}

/** Default and bounds of a custom tool's time limit. */
export const defaultCustomToolTimeoutMs = 10 * 60_000;
const minTimeoutMs = 1000;
const maxTimeoutMs = 24 * 60 * 60_000;
/** Attempts of an idempotent (or read-only) custom tool. */
export const idempotentToolAttempts = 3;
/** How long a custom tool's activity may go without a heartbeat (the runtime beats every second). */
export const customToolHeartbeatTimeoutMs = 30_000;

function timeoutOf(name: string, timeout: Duration | undefined): number {
  if (timeout === undefined) return defaultCustomToolTimeoutMs;
  let ms: number;
  try {
    ms = msToNumber(timeout);
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms < minTimeoutMs || ms > maxTimeoutMs) {
    throw new Error(
      `defineTool("${name}"): timeout ${JSON.stringify(timeout)} is not a duration from 1 s to 24 h (for example '2 minutes' or 120000).`,
    );
  }
  return ms;
}

/** Defines a custom tool; throws a message naming what to fix when the definition is unusable. */
export function defineTool<Schema extends z.ZodType>(options: CustomToolOptions<Schema>): CustomTool {
  if (typeof options !== 'object' || options === null)
    throw new Error('defineTool: give an object { name, description, input, run }.');
  const { name, description, input, run } = options;
  if (typeof name !== 'string' || !isCustomToolName(name)) {
    throw new Error(
      `defineTool: name ${JSON.stringify(name)} is not usable: give 1 to 64 letters, digits, '_' or '-', not a runtime tool's name and not starting with mcp__.`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '')
    throw new Error(`defineTool("${name}"): give a description (the model reads it to decide when to call the tool).`);
  if (!(input instanceof z.ZodType))
    throw new Error(
      `defineTool("${name}"): input must be a zod schema (zod 4), for example z.object({ city: z.string() }).`,
    );
  if (typeof run !== 'function')
    throw new Error(`defineTool("${name}"): run must be a function (input, context) => result.`);
  let inputSchema: Record<string, unknown>;
  try {
    inputSchema = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `defineTool("${name}"): its input schema has no JSON Schema form (${error instanceof Error ? error.message : String(error)}); use plain zod types.`,
    );
  }
  if (inputSchema.type !== 'object')
    throw new Error(
      `defineTool("${name}"): input must be an object schema (z.object({...})): tool inputs are JSON objects.`,
    );
  delete inputSchema.$schema;
  const readOnly = options.readOnly === true;
  return {
    name,
    description,
    inputSchema,
    readOnly,
    needsApproval: options.needsApproval ?? !readOnly,
    idempotent: options.idempotent ?? readOnly,
    ...(options.taskQueue !== undefined
      ? { taskQueue: parseTaskQueueName(options.taskQueue, `defineTool("${name}").taskQueue`) }
      : {}),
    timeoutMs: timeoutOf(name, options.timeout),
    parse(value) {
      const parsed = input.safeParse(value);
      if (parsed.success) return { ok: true, value: parsed.data };
      return {
        ok: false,
        problems: parsed.error.issues.map(
          (issue) => `${issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'input'}: ${issue.message}`,
        ),
      };
    },
    run: run as CustomTool['run'],
  };
}

/** What the workflow carries for a custom tool: its definition, classification and how its activity is called. */
export function customToolDescriptor(tool: CustomTool): ToolDescriptor {
  return {
    definition: { name: tool.name, description: tool.description, input_schema: tool.inputSchema },
    classification: {
      readOnly: tool.readOnly,
      needsApproval: tool.needsApproval,
      retrySafe: tool.idempotent || tool.readOnly,
    },
    runner: {
      kind: 'custom',
      ...(tool.taskQueue ? { taskQueue: tool.taskQueue } : {}),
      timeoutMs: tool.timeoutMs,
      heartbeatTimeoutMs: customToolHeartbeatTimeoutMs,
      maximumAttempts: tool.idempotent || tool.readOnly ? idempotentToolAttempts : 1,
    },
  };
}
