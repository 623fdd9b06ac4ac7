/** Scenario, turn, fault and behaviour formats (zod, strict: a misspelt key is an error, not ignored). */
import { z } from 'zod';

const stopReasons = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const;

export const faultKinds = [
  '429',
  '529',
  '500',
  'http-error',
  'stream-cut',
  'slow-first-byte',
  'overloaded-sse',
] as const;

export const faultSpecSchema = z
  .strictObject({
    kind: z.enum(faultKinds),
    /** `retry-after` of a 429 (default 1) or 529 (none unless given). */
    retryAfterSeconds: z.number().nonnegative().optional(),
    /** slow-first-byte: wait before the headers (default 1000). */
    delayMs: z.number().int().nonnegative().optional(),
    /** How many matching attempts fail (default 1). */
    times: z.number().int().positive().optional(),
    /** http-error: the HTTP status (400-599), answered with the API's error body. */
    status: z.number().int().min(400).max(599).optional(),
    /** http-error: the body's error.type (default: the API's type for the status, e.g. invalid_request_error for 400). */
    errorType: z.string().min(1).optional(),
    /** http-error: the body's error.message. */
    message: z.string().min(1).optional(),
    match: z
      .strictObject({
        agentId: z.string().optional(),
        agentType: z.string().optional(),
        turnIndex: z.number().int().nonnegative().optional(),
      })
      .optional(),
  })
  .refine((spec) => (spec.kind === 'http-error') === (spec.status !== undefined), {
    message: 'an http-error fault needs "status" (400-599), and only it takes one',
  });

const scriptedToolUseSchema = z.strictObject({
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  /** Overrides the deterministic id. */
  id: z.string().min(1).optional(),
});

/** A server-side web search the scripted model runs; the server answers it from the search fixture. */
const scriptedServerToolUseSchema = z.strictObject({
  name: z.literal('web_search'),
  input: z.strictObject({ query: z.string() }),
});

/** A page of the web search fixture. */
const fixturePageSchema = z.strictObject({
  url: z.url(),
  title: z.string(),
  text: z.string(),
  pageAge: z.string().optional(),
});

export const turnSchema = z
  .strictObject({
    text: z.string().min(1).optional(),
    toolUses: z.array(scriptedToolUseSchema).optional(),
    /** Web searches run before the text (server_tool_use + web_search_tool_result blocks). */
    serverToolUses: z.array(scriptedServerToolUseSchema).optional(),
    thinking: z.string().min(1).optional(),
    stopReason: z.enum(stopReasons).optional(),
    delayMs: z.number().int().nonnegative().optional(),
    /** A slow stream: pause this long before each server-sent event after message_start. */
    eventDelayMs: z.number().int().nonnegative().max(60_000).optional(),
    /** A stalled stream: send this many events, then keep the connection open and send nothing more. */
    stallAfterEvents: z.number().int().positive().optional(),
    fault: faultSpecSchema.optional(),
  })
  .refine(
    (turn) =>
      turn.text !== undefined ||
      (turn.toolUses?.length ?? 0) > 0 ||
      turn.thinking !== undefined ||
      (turn.serverToolUses?.length ?? 0) > 0,
    {
      message: 'a turn needs text, toolUses, serverToolUses or thinking',
    },
  );

export const agentMatchSchema = z.strictObject({
  agentType: z.string().optional(),
  agentName: z.string().optional(),
  agentId: z.string().optional(),
  systemIncludes: z.string().optional(),
  userIncludes: z.string().optional(),
});

/** An agent that works the task board by itself (board-worker.ts) instead of following turns. */
export const boardWorkerSchema = z.strictObject({
  /** Bash command run for each claimed task; `{{task}}` is its id, `{{agent_id}}` the agent. Without it, claimed tasks are completed at once. */
  workCommand: z.string().min(1).optional(),
  /** Delay of a TaskList reply when nothing can be claimed yet (default 300). */
  pollDelayMs: z.number().int().nonnegative().optional(),
  /** Gives up after this many fruitless TaskList calls in a row (default 200). */
  maxIdlePolls: z.number().int().positive().optional(),
});

export const scenarioSchema = z.strictObject({
  agents: z.array(
    z
      .strictObject({
        match: agentMatchSchema,
        /** Assistant messages the agent inherits (a fork child's copied history): its turn 0 comes after them. */
        turnOffset: z.number().int().nonnegative().optional(),
        turns: z.array(turnSchema).optional(),
        boardWorker: boardWorkerSchema.optional(),
      })
      .refine((entry) => (entry.turns === undefined) !== (entry.boardWorker === undefined), {
        message: 'an agent entry needs exactly one of turns or boardWorker',
      }),
  ),
  default: z.array(turnSchema).optional(),
  /** Pages the web search tool finds (default: a small built-in set, src/model-server/web-search.ts). */
  webSearchPages: z.array(fixturePageSchema).optional(),
});

export const behaviourSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('scripted'), scenario: scenarioSchema }),
  z.strictObject({ kind: z.literal('demo') }),
  z.strictObject({ kind: z.literal('echo') }),
]);

export type FaultSpec = z.infer<typeof faultSpecSchema>;
export type FaultKind = FaultSpec['kind'];
export type Turn = z.infer<typeof turnSchema>;
export type BoardWorkerOptions = z.infer<typeof boardWorkerSchema>;
export type AgentMatch = z.infer<typeof agentMatchSchema>;
export type Scenario = z.infer<typeof scenarioSchema>;
export type Behaviour = z.infer<typeof behaviourSchema>;

/** A scenario, behaviour or fault that failed validation; the message lists every problem by path. */
export class ScenarioValidationError extends Error {
  override readonly name = 'ScenarioValidationError';
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `  - ${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`,
  );
  throw new ScenarioValidationError(`invalid ${what}:\n${problems.join('\n')}`);
}

/** Validates a scenario; throws ScenarioValidationError. */
export const parseScenario = (value: unknown): Scenario => parseWith(scenarioSchema, value, 'scenario');
/** Validates a behaviour; throws ScenarioValidationError. */
export const parseBehaviour = (value: unknown): Behaviour => parseWith(behaviourSchema, value, 'behaviour');
/** Validates a fault; throws ScenarioValidationError. */
export const parseFaultSpec = (value: unknown): FaultSpec => parseWith(faultSpecSchema, value, 'fault');
