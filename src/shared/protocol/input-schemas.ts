import { z } from 'zod';
import { agentStatuses, type AgentResult } from '../agents/agent';
import { agentColors } from '../agents/agent-colors';
import {
  budgetActions,
  capNames,
  type BudgetAction,
  type BudgetCaps,
  type BudgetChange,
  type BudgetCharge,
  type BudgetGrant,
} from '../budget/budget';
import type { TokenUsage } from '../model/messages';
import type {
  AgentMessage,
  BudgetReserve,
  CompactInput,
  ResumeDescendantInput,
  InterruptInput,
  StopNotice,
  SteerInput,
  TreeAgentEvent,
  TreeAgentStarted,
  TreeSpawnReply,
  TreeSpawnRequest,
  UpgradeNotice,
} from './definitions';
import { inputLimits } from './limits';
import type { ConversationQueryInput } from '../model/model-call';
import type { TranscriptQueryInput } from './run-transcript';
import type { BoardNotice } from '../board/board';
import type { ApprovalDecision, ApprovalRequest } from './tree';
import type { TurnConversationInput } from '../rewind/turns';
import type { ForkSubagentInput, RewindInput } from '../rewind/rewind-protocol';
import { hookEvents } from '../policy/hooks';
import type { TreeSettings } from '../agents/tree-settings';

// Schemas of every agent signal, update and query input: a bad payload is refused, never thrown in a handler.

/** What a handler needs of a schema. */
export interface InputSchema<T> {
  safeParse(value: unknown): z.ZodSafeParseResult<T>;
  parse(value: unknown): T;
}

/** A schema built on first use: each run evaluates modules anew, and most inputs never arrive (docs/operations.md). */
function lazySchema<T>(build: () => z.ZodType<T>, plainly?: (value: unknown) => T | undefined): InputSchema<T> {
  let schema: z.ZodType<T> | undefined;
  const built = (): z.ZodType<T> => (schema ??= build());
  if (!plainly) return { safeParse: (value) => built().safeParse(value), parse: (value) => built().parse(value) };
  return {
    safeParse: (value) => {
      const data = plainly(value);
      return data === undefined ? built().safeParse(value) : ({ success: true, data } as z.ZodSafeParseResult<T>);
    },
    parse: (value) => plainly(value) ?? built().parse(value),
  };
}

/** A non-array object's own fields, or undefined. */
const fieldsOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= inputLimits.maxIdChars;
const isShortText = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= inputLimits.maxShortTextChars;

// Building blocks, built with the schemas that use them (each run of an agent loads these modules anew).
const id = () => z.string().min(1).max(inputLimits.maxIdChars);
const shortText = () => z.string().max(inputLimits.maxShortTextChars);
const count = () => z.number().int().nonnegative();
const usage = () =>
  z.object({
    inputTokens: count(),
    outputTokens: count(),
    cacheCreationInputTokens: count(),
    cacheReadInputTokens: count(),
  });
/** A signal whose fields are all optional may come with no input at all (`temporal workflow signal` without `--input`). */
const optionalFields = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.preprocess((value) => value ?? {}, z.object(shape));

export const agentMessageSchema: InputSchema<AgentMessage> = lazySchema(() =>
  z.object({
    from: id().default('user'),
    text: z.string().min(1).max(inputLimits.maxMessageChars),
  }),
);

export const steerInputSchema: InputSchema<SteerInput> = lazySchema(() =>
  z.object({
    text: z
      .string()
      .max(inputLimits.maxMessageChars)
      .refine((text) => text.trim() !== '', 'must not be empty'),
    by: id().optional(),
  }),
);

/** A build id as Temporal takes it: printable, no spaces, at most 255 characters. */
export const upgradeNoticeSchema: InputSchema<UpgradeNotice> = lazySchema(() =>
  z.object({ buildId: z.string().regex(/^[\x21-\x7e]{1,255}$/, 'a build id: 1-255 printable characters, no spaces') }),
);

export const interruptInputSchema: InputSchema<InterruptInput> = lazySchema(() =>
  optionalFields({ by: id().optional(), reason: shortText().optional() }),
);

/** The runtime's own marks a stop notice may carry besides who and why (docs/architecture.md). */
export const stopNoticeMarks = ['wholeTree', 'parentEnded'] as const;

/** Every stopped agent gets one, so a well-formed notice skips zod; anything else goes to the schema. */
export const stopNoticeSchema: InputSchema<StopNotice> = lazySchema(
  () =>
    z.object({ by: id(), reason: shortText(), wholeTree: z.boolean().optional(), parentEnded: z.boolean().optional() }),
  (value) => {
    const fields = fieldsOf(value);
    if (!fields || !isId(fields.by) || !isShortText(fields.reason)) return undefined;
    const notice: StopNotice = { by: fields.by, reason: fields.reason };
    for (const mark of stopNoticeMarks) {
      const given = fields[mark];
      if (given === undefined) continue;
      if (typeof given !== 'boolean') return undefined;
      notice[mark] = given;
    }
    return notice;
  },
);

export const pauseSpawningSchema: InputSchema<{ paused: boolean }> = lazySchema(() =>
  z.object({ paused: z.boolean() }),
);

/** The conversation query's input; a plain `{from}` skips zod, which the run would otherwise load for one field. */
export const conversationQuerySchema: InputSchema<ConversationQueryInput> = lazySchema(
  () => z.object({ from: count() }),
  (value) => {
    const from = fieldsOf(value)?.from;
    return typeof from === 'number' && Number.isSafeInteger(from) && from >= 0 ? { from } : undefined;
  },
);

export const agentResultSchema: InputSchema<AgentResult> = lazySchema(
  () =>
    z.looseObject({
      agentId: id(),
      agentType: id(),
      status: z.enum(agentStatuses),
      finalText: z.string(),
      error: z.string().optional(),
      usage: usage(),
      toolUses: count(),
      turns: count(),
      durationMs: z.number(),
      model: z.string(),
      treeUsage: usage(),
      undelivered: z.array(z.string()).optional(),
    }) as unknown as z.ZodType<AgentResult>,
);

export const treeSpawnRequestSchema: InputSchema<TreeSpawnRequest> = lazySchema(() =>
  z.object({ requestId: id(), requesterId: id(), childId: id() }),
);

export const treeSpawnReplySchema: InputSchema<TreeSpawnReply> = lazySchema(() =>
  z.object({ requestId: id(), granted: z.boolean(), reason: shortText().optional() }),
);

export const treeAgentEventSchema: InputSchema<TreeAgentEvent> = lazySchema(() =>
  z.object({
    agentId: id(),
    kind: z.enum(['usage', 'finished', 'backgrounded']),
    usage: usage().optional(),
    background: z.boolean().optional(),
  }),
);

export const treeAgentStartedSchema: InputSchema<TreeAgentStarted> = lazySchema(() =>
  z.object({
    agentId: id(),
    parentAgentId: id(),
    background: z.boolean(),
    agentType: id().optional(),
    color: z.enum(agentColors).optional(),
    description: shortText().optional(),
    name: id().optional(),
    depth: count().optional(),
    startedAtMs: z.number().optional(),
    budgetCaps: budgetCapsShape().optional(),
  }),
);

export const approvalRequestSchema: InputSchema<ApprovalRequest> = lazySchema(() =>
  z.object({
    requestId: id(),
    agentId: id(),
    agentType: id(),
    tool: id(),
    toolUseId: id(),
    inputSummary: shortText(),
    requestedAtMs: z.number(),
    permission: shortText().optional(),
    withdrawn: z.boolean().optional(),
  }),
);

export const approvalDecisionSchema: InputSchema<ApprovalDecision> = lazySchema(() =>
  z.object({
    requestId: id(),
    approved: z.boolean(),
    always: z.boolean().optional(),
    by: id().optional(),
    reason: shortText().optional(),
    updatedInput: z
      .record(z.string(), z.unknown())
      .refine((value) => JSON.stringify(value).length <= inputLimits.maxUpdatedInputChars, {
        message: `updatedInput is over ${inputLimits.maxUpdatedInputChars} characters of JSON`,
      })
      .optional(),
  }),
);

export const compactInputSchema: InputSchema<CompactInput> = lazySchema(() =>
  optionalFields({ by: id().optional(), instructions: shortText().optional() }),
);

export const transcriptQuerySchema: InputSchema<TranscriptQueryInput> = lazySchema(
  () => optionalFields({ from: count().default(0) }) as z.ZodType<TranscriptQueryInput>,
);

export const resumeDescendantSchema: InputSchema<ResumeDescendantInput> = lazySchema(() =>
  z
    .object({
      agentId: id(),
      // May be empty only for a rewind without a new prompt (checked below).
      prompt: z.string().max(inputLimits.maxMessageChars),
      allowStopped: z.boolean().optional(),
      rewind: z
        .object({ turn: z.number().int().nonnegative().max(1_000_000), files: z.boolean().optional() })
        .optional(),
      by: id().optional(),
    })
    .refine((request) => request.rewind !== undefined || request.prompt.trim() !== '', {
      message: 'must not be empty',
      path: ['prompt'],
    }),
);

export const boardNoticeSchema: InputSchema<BoardNotice> = lazySchema(() =>
  z.object({
    boardId: id(),
    ownerAgentId: id().optional(),
    taskIds: z.array(id()).max(inputLimits.maxListItems),
    text: z.string().min(1).max(inputLimits.maxShortTextChars),
  }),
);

/** One line naming every problem of a refused input, for logs and for the caller of an update. */
export function describeInputError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

// The ledger's signals come with every model call of a budgeted tree: well-formed ones are taken without zod.
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const plainUsage = (value: unknown): TokenUsage | undefined => {
  const fields = fieldsOf(value);
  if (!fields) return undefined;
  const { inputTokens, outputTokens, cacheCreationInputTokens, cacheReadInputTokens } = fields;
  if (
    !isCount(inputTokens) ||
    !isCount(outputTokens) ||
    !isCount(cacheCreationInputTokens) ||
    !isCount(cacheReadInputTokens)
  )
    return undefined;
  return { inputTokens, outputTokens, cacheCreationInputTokens, cacheReadInputTokens };
};
const budgetCapsShape = () =>
  z.strictObject({
    tokens: count().positive().optional(),
    costUsd: z.number().positive().finite().optional(),
    toolCalls: count().positive().optional(),
    turns: count().positive().optional(),
    wallTimeMs: count().positive().optional(),
    concurrentAgents: count().positive().optional(),
  });

export const budgetReserveSchema: InputSchema<BudgetReserve> = lazySchema(
  () =>
    z.object({
      requesterId: id(),
      request: z.object({
        reservationId: id(),
        agentId: id(),
        parentAgentId: id().optional(),
        caps: budgetCapsShape().optional(),
        model: id(),
        inputTokens: count(),
        maxOutputTokens: count().positive(),
        minOutputTokens: count(),
        ahead: z.boolean().optional(),
        leaseTokens: count().optional(),
        topUp: id().optional(),
      }),
      settle: chargeShape().optional(),
    }),
  (value) => {
    const fields = fieldsOf(value);
    const request = fieldsOf(fields?.request);
    if (
      !fields ||
      !request ||
      !isId(fields.requesterId) ||
      !isId(request.reservationId) ||
      !isId(request.agentId) ||
      !isId(request.model)
    )
      return undefined;
    if (request.caps !== undefined || (request.parentAgentId !== undefined && !isId(request.parentAgentId)))
      return undefined;
    const { inputTokens, maxOutputTokens, minOutputTokens, ahead, leaseTokens, topUp } = request;
    if (!isCount(inputTokens) || !isCount(maxOutputTokens) || maxOutputTokens === 0 || !isCount(minOutputTokens))
      return undefined;
    if (ahead !== undefined && typeof ahead !== 'boolean') return undefined;
    if ((leaseTokens !== undefined && !isCount(leaseTokens)) || (topUp !== undefined && !isId(topUp))) return undefined;
    const settle = fields.settle === undefined ? undefined : plainCharge(fields.settle);
    if (fields.settle !== undefined && !settle) return undefined;
    return {
      requesterId: fields.requesterId,
      request: {
        reservationId: request.reservationId,
        agentId: request.agentId,
        ...(request.parentAgentId !== undefined ? { parentAgentId: request.parentAgentId as string } : {}),
        model: request.model,
        inputTokens,
        maxOutputTokens,
        minOutputTokens,
        ...(ahead ? { ahead: true } : {}),
        ...(leaseTokens !== undefined ? { leaseTokens } : {}),
        ...(topUp !== undefined ? { topUp } : {}),
      },
      ...(settle ? { settle } : {}),
    };
  },
);

export const budgetGrantSchema: InputSchema<BudgetGrant> = lazySchema(
  () =>
    z.union([
      z.object({
        reservationId: id(),
        granted: z.literal(true),
        outputTokens: count(),
        reservedTokens: count(),
        leaseId: id().optional(),
      }),
      z.object({
        reservationId: id(),
        granted: z.literal(false),
        reason: shortText(),
        scopeAgentId: id(),
        cap: z.enum(capNames),
        action: z.enum(budgetActions as [BudgetAction, ...BudgetAction[]]),
        revoked: z.boolean().optional(),
      }),
    ]),
  (value) => {
    const fields = fieldsOf(value);
    if (
      !fields ||
      fields.granted !== true ||
      !isId(fields.reservationId) ||
      !isCount(fields.outputTokens) ||
      !isCount(fields.reservedTokens)
    )
      return undefined;
    if (fields.leaseId !== undefined && !isId(fields.leaseId)) return undefined;
    return {
      reservationId: fields.reservationId,
      granted: true,
      outputTokens: fields.outputTokens,
      reservedTokens: fields.reservedTokens,
      ...(fields.leaseId !== undefined ? { leaseId: fields.leaseId } : {}),
    };
  },
);

const chargeShape = () =>
  z.object({
    reservationId: id(),
    agentId: id(),
    model: id(),
    attempt: count(),
    usage: usage(),
    toolCalls: count().optional(),
    final: z.boolean(),
    unused: z.boolean().optional(),
    leaseId: id().optional(),
    presumedInputTokens: count().optional(),
    endsLease: z.boolean().optional(),
  });
function plainCharge(value: unknown): BudgetCharge | undefined {
  const fields = fieldsOf(value);
  if (
    !fields ||
    !isId(fields.reservationId) ||
    !isId(fields.agentId) ||
    !isId(fields.model) ||
    !isCount(fields.attempt) ||
    typeof fields.final !== 'boolean'
  )
    return undefined;
  const chargedUsage = plainUsage(fields.usage);
  if (!chargedUsage || (fields.toolCalls !== undefined && !isCount(fields.toolCalls))) return undefined;
  if (fields.unused !== undefined && typeof fields.unused !== 'boolean') return undefined;
  const { leaseId, presumedInputTokens, endsLease } = fields;
  if ((leaseId !== undefined && !isId(leaseId)) || (presumedInputTokens !== undefined && !isCount(presumedInputTokens)))
    return undefined;
  if (endsLease !== undefined && typeof endsLease !== 'boolean') return undefined;
  return {
    ...(fields.unused === true ? { unused: true } : {}),
    ...(leaseId !== undefined ? { leaseId } : {}),
    ...(presumedInputTokens !== undefined ? { presumedInputTokens } : {}),
    ...(endsLease === true ? { endsLease: true } : {}),
    reservationId: fields.reservationId,
    agentId: fields.agentId,
    model: fields.model,
    attempt: fields.attempt,
    usage: chargedUsage,
    ...(fields.toolCalls !== undefined ? { toolCalls: fields.toolCalls } : {}),
    final: fields.final,
  };
}

export const budgetChargeSchema: InputSchema<BudgetCharge> = lazySchema(() => chargeShape(), plainCharge);

export const budgetChangeSchema: InputSchema<BudgetChange> = lazySchema(() =>
  z.object({
    agentId: id().optional(),
    caps: budgetCapsShape().refine((caps) => Object.keys(caps).length > 0, 'name at least one cap'),
    by: id().optional(),
  }),
);

/** Caps given with a spawn (sent to the root with the agent's start). */
export const budgetCapsSchema: InputSchema<BudgetCaps> = lazySchema(() => budgetCapsShape());

const turnNumber = () => z.number().int().nonnegative().max(1_000_000);
const continuation = () =>
  z
    .string()
    .max(inputLimits.maxMessageChars)
    .refine((text) => text.trim() !== '', 'must not be empty');

export const turnConversationSchema: InputSchema<TurnConversationInput> = lazySchema(() =>
  z.object({ turn: turnNumber() }),
);

export const rewindInputSchema: InputSchema<RewindInput> = lazySchema(() =>
  z.object({
    turn: turnNumber(),
    files: z.boolean().optional(),
    prompt: continuation().optional(),
    by: id().optional(),
  }),
);

export const forkSubagentSchema: InputSchema<ForkSubagentInput> = lazySchema(() =>
  z.object({
    sourceAgentId: id(),
    turn: turnNumber(),
    prompt: continuation().optional(),
    cwd: z
      .string()
      .min(1)
      .max(4096)
      .refine((dir) => !dir.includes('\0'), 'must not contain NUL')
      .optional(),
    worktree: z.boolean().optional(),
    by: id().optional(),
  }),
);

/** Characters of one path, rule, command or prompt in pushed settings (a settings file holds at most 1 MiB). */
const settingsTextChars = 1_048_576;

/** A root's re-read settings pushed to a running subagent: the shape hooks, rules and the sandbox read, or nothing is taken. */
export const settingsPushSchema: InputSchema<{ settings: TreeSettings }> = lazySchema(() => {
  const text = () => z.string().max(settingsTextChars);
  const texts = () => z.array(text()).max(10_000);
  const common = {
    timeout: z.number().positive().optional(),
    statusMessage: text().optional(),
    once: z.boolean().optional(),
  };
  const handler = z.discriminatedUnion('type', [
    z.object({ type: z.literal('command'), command: text(), async: z.boolean().optional(), ...common }),
    z.object({
      type: z.literal('http'),
      url: text(),
      headers: z.record(z.string(), text()).optional(),
      allowedEnvVars: texts().optional(),
      ...common,
    }),
    z.object({ type: z.literal('prompt'), prompt: text(), model: text().optional(), ...common }),
    z.object({ type: z.literal('agent'), prompt: text(), model: text().optional(), ...common }),
  ]);
  const matcher = z.object({ matcher: text().optional(), hooks: z.array(handler).max(1_000) });
  const rule = z.object({ tool: text(), content: text(), root: text().optional(), text: text(), file: text() });
  const rules = () => z.array(rule).max(10_000).optional();
  return z.object({
    settings: z.object({
      projectDir: z.string().min(1).max(4_096),
      files: z.array(z.string().max(4_096)).max(16),
      hooks: z.partialRecord(z.enum(hookEvents), z.array(matcher).max(1_000)).optional(),
      permissions: z.object({ allow: rules(), ask: rules(), deny: rules() }).optional(),
      sandbox: z
        .object({
          autoAllowBashIfSandboxed: z.boolean().optional(),
          filesystem: z
            .object({
              allowWrite: texts().optional(),
              denyWrite: texts().optional(),
              denyRead: texts().optional(),
              allowRead: texts().optional(),
            })
            .optional(),
          network: z.object({ allowedDomains: texts().optional(), deniedDomains: texts().optional() }).optional(),
        })
        .optional(),
      version: z.number().int().positive(),
      problems: texts().optional(),
    }),
  }) as z.ZodType<{ settings: TreeSettings }>;
});
