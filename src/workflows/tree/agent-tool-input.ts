import { narrowCaps, type BudgetCaps } from '../../shared/budget/budget';
import { ErrorType, errorText } from '../../shared/protocol/errors';

/** The Agent tool's input, validated (the model is untrusted input). */
export interface AgentToolInput {
  description: string;
  prompt: string;
  subagent_type?: string;
  model?: string;
  run_in_background?: boolean;
  name?: string;
  isolation?: 'worktree';
  cwd?: string;
  /** Caps the caller gives the child's subtree (never more than the caller's own; docs/budgets.md). */
  budget?: BudgetCaps;
}

const budgetFields = {
  max_tokens: { cap: 'tokens', whole: true, scale: 1 },
  max_cost_usd: { cap: 'costUsd', whole: false, scale: 1 },
  max_tool_calls: { cap: 'toolCalls', whole: true, scale: 1 },
  max_time_seconds: { cap: 'wallTimeMs', whole: false, scale: 1000 },
} as const;

/** The longest wall time an Agent call may give (a year: longer is a mistake, not a cap). */
const maxBudgetSeconds = 366 * 24 * 60 * 60;

/** The Agent call's `budget` object as caps, each problem pushed to `problems`. */
function parseBudget(raw: unknown, problems: string[]): BudgetCaps | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`"budget" must be an object with any of ${Object.keys(budgetFields).join(', ')}`);
    return undefined;
  }
  const caps: BudgetCaps = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const field = key in budgetFields ? budgetFields[key as keyof typeof budgetFields] : undefined;
    if (!field) {
      problems.push(
        `"budget" has no field ${JSON.stringify(key.slice(0, 40))} (its fields: ${Object.keys(budgetFields).join(', ')})`,
      );
      continue;
    }
    if (value === undefined || value === null) continue;
    const limit = key === 'max_time_seconds' ? maxBudgetSeconds : Number.MAX_SAFE_INTEGER;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value <= 0 ||
      value > limit ||
      (field.whole && !Number.isInteger(value))
    ) {
      problems.push(
        `"budget.${key}" must be a positive ${field.whole ? 'whole number' : 'number'}${key === 'max_time_seconds' ? ` of at most ${limit}` : ''}`,
      );
      continue;
    }
    caps[field.cap] = field.scale === 1 ? value : Math.max(1, Math.round(value * field.scale));
  }
  return Object.keys(caps).length > 0 ? caps : undefined;
}

/** Validates the model's Agent input by hand (zod compiles code at runtime, which the workflow sandbox should not do). */
export function parseAgentToolInput(
  raw: Record<string, unknown>,
): { ok: true; value: AgentToolInput } | { ok: false; error: string } {
  const problems: string[] = [];
  const optionalString = (key: string): string | undefined => {
    const value = raw[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') problems.push(`"${key}" must be a string`);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const description = optionalString('description');
  const prompt = typeof raw.prompt === 'string' ? raw.prompt : undefined;
  if (!description) problems.push('"description" (a short 3-5 word label) is required');
  if (!prompt || prompt.trim() === '') problems.push('"prompt" (the full task for the agent) is required');
  const background = raw.run_in_background;
  if (background !== undefined && background !== null && typeof background !== 'boolean')
    problems.push('"run_in_background" must be a boolean');
  const isolation = optionalString('isolation');
  if (isolation !== undefined && isolation !== 'worktree') problems.push('"isolation" must be "worktree" when given');
  const value: AgentToolInput = {
    description: description ?? '',
    prompt: prompt ?? '',
    subagent_type: optionalString('subagent_type'),
    model: optionalString('model'),
    run_in_background: typeof background === 'boolean' ? background : undefined,
    name: optionalString('name'),
    isolation: isolation === 'worktree' ? 'worktree' : undefined,
    cwd: optionalString('cwd'),
  };
  const budget = parseBudget(raw.budget, problems);
  if (budget) value.budget = budget;
  if (value.isolation && value.cwd) problems.push('"cwd" and "isolation" are exclusive: give one of them');
  // Letters of any script (with their combining marks), never spaces or punctuation: SendMessage addresses it.
  if (value.name && !/^[\p{L}\p{M}\p{N}_-]{1,64}$/u.test(value.name))
    problems.push('"name" may use letters (of any language), digits, "_" and "-" (at most 64)');
  return problems.length > 0
    ? { ok: false, error: errorText(ErrorType.InvalidToolInput, `${problems.join('; ')}.`) }
    : { ok: true, value };
}

/** A child's caps: the lower of its type's and the call's, never above the caller's own. */
export function childBudgetCaps(
  definitionCaps: BudgetCaps | undefined,
  callCaps: BudgetCaps | undefined,
  callerCaps: BudgetCaps | undefined,
): { budgetCaps?: BudgetCaps } {
  const asked = definitionCaps || callCaps ? { ...definitionCaps, ...narrowCaps(callCaps, definitionCaps) } : undefined;
  const budgetCaps = narrowCaps(asked, callerCaps);
  return budgetCaps ? { budgetCaps } : {};
}

/** The fields the Agent tool takes (its input_schema's properties). */
export const agentToolFields: readonly string[] = [
  'description',
  'prompt',
  'subagent_type',
  'model',
  'run_in_background',
  'name',
  'isolation',
  'cwd',
  'budget',
];

/** What to say about fields the model may have learned elsewhere but that this runtime does not have. */
const fieldHints: Readonly<Record<string, string>> = {
  resume: 'to continue a finished agent, use SendMessage with its agentId or name',
  max_turns: 'the turn limit comes from the agent type (maxTurns in its definition)',
  team_name: 'there are no teams here',
  mode: 'the permission mode comes from the agent type (permissionMode in its definition)',
};

/** Fields of an Agent call that the tool does not have, in the order given. */
export function unknownAgentToolFields(raw: Record<string, unknown>): string[] {
  return Object.keys(raw).filter((key) => !agentToolFields.includes(key));
}

/** The error for an Agent call with unknown fields: each named, with what to do instead where we know it. */
export function unknownAgentToolFieldsError(fields: readonly string[]): string {
  const named = fields.map((field) => `"${field}"${fieldHints[field] ? ` (${fieldHints[field]})` : ''}`).join(', ');
  return errorText(
    ErrorType.InvalidToolInput,
    `the Agent tool has no field ${named}. Nothing was started. Its fields are: ${agentToolFields.join(', ')}. Call it again without the unknown field${fields.length > 1 ? 's' : ''}.`,
  );
}
