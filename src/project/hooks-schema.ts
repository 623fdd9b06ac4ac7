// Claude Code's `hooks` configuration, checked per entry: a bad one is dropped with a fix (docs/hooks.md).
import { z } from 'zod';
import { hookEvents, hookLimits, type HookEvent, type HookMatcher, type HooksConfig } from '../shared/policy/hooks';
import { handlerTypesFor, type HookHandler, type HookHandlerType } from '../shared/policy/hook-handlers';

/** Claude Code events that mean nothing here (docs/hooks.md, "Events that do not fire here"): accepted, with a warning. */
const otherClaudeCodeEvents = [
  'InstructionsLoaded',
  'FileChanged',
  'Elicitation',
  'ElicitationResult',
  'TeammateIdle',
  'Setup',
];

const timeoutSchema = z
  .number({ error: 'timeout must be a number of seconds' })
  .positive({ error: 'timeout must be a positive number of seconds' })
  .max(hookLimits.maxTimeoutSeconds, { error: `timeout must be at most ${hookLimits.maxTimeoutSeconds} seconds` })
  .optional();

// Options every handler type has (Claude Code's common fields); `if` is accepted, not acted on.
const commonFields = {
  timeout: timeoutSchema,
  statusMessage: z.string({ error: 'statusMessage must be a string' }).optional(),
  once: z.boolean({ error: 'once must be true or false' }).optional(),
  if: z.string().optional(),
};

const text = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, { error: `${field} must not be empty` });

const handlerSchemas = {
  command: z.strictObject({
    type: z.literal('command'),
    command: text('command'),
    async: z.boolean({ error: 'async must be true or false' }).optional(),
    ...commonFields,
    // Claude Code's other command options: accepted, not acted on.
    asyncRewake: z.boolean().optional(),
    shell: z.string().optional(),
  }),
  http: z.strictObject({
    type: z.literal('http'),
    url: text('url').refine((value) => /^https?:\/\//i.test(value), {
      error: 'url must be an http:// or https:// URL',
    }),
    headers: z
      .record(z.string(), z.string({ error: 'header values must be strings' }))
      .refine((headers) => Object.keys(headers).every((name) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)), {
        error: 'header names must be HTTP tokens (letters, digits, - and _, no spaces)',
      })
      .optional(),
    allowedEnvVars: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'allowedEnvVars lists variable names (NAME, not $NAME)' }),
      )
      .optional(),
    ...commonFields,
  }),
  prompt: z.strictObject({
    type: z.literal('prompt'),
    prompt: text('prompt'),
    model: text('model').optional(),
    ...commonFields,
  }),
  agent: z.strictObject({
    type: z.literal('agent'),
    prompt: text('prompt'),
    model: text('model').optional(),
    ...commonFields,
  }),
};
const handlerTypes = Object.keys(handlerSchemas) as HookHandlerType[];

const groupSchema = z.looseObject({
  matcher: z.string({ error: 'must be a string (a tool name, A|B, or a regular expression)' }).optional(),
  hooks: z.array(z.unknown(), { error: 'must be a list of hook handlers ({type: "command", command: "..."}, …)' }),
});

/** A hooks configuration, and what was dropped from it. */
export interface ParsedHooks {
  hooks?: HooksConfig;
  problems: string[];
}

const issueText = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');

function parseHook(value: unknown, where: string, event: HookEvent, problems: string[]): HookHandler | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (!handlerTypes.includes(type as HookHandlerType)) {
    problems.push(
      `${where}: ${type === undefined ? 'a hook needs a type' : `hooks of type ${JSON.stringify(type)} are not supported`} (use ${handlerTypes.map((name) => `"${name}"`).join(', ')}); dropped`,
    );
    return undefined;
  }
  const allowed = handlerTypesFor(event);
  if (!allowed.includes(type as HookHandlerType)) {
    problems.push(
      `${where}: ${event} takes ${allowed.map((name) => `"${name}"`).join(' and ')} hooks, as in Claude Code, not "${String(type)}"; dropped`,
    );
    return undefined;
  }
  const parsed = handlerSchemas[type as HookHandlerType].safeParse(value);
  if (!parsed.success) {
    problems.push(`${where}: ${issueText(parsed.error.issues)}; dropped`);
    return undefined;
  }
  // What is not acted on is not kept: `if`, `shell`, `asyncRewake`.
  const { if: _if, ...handler } = parsed.data as typeof parsed.data & {
    if?: string;
    shell?: string;
    asyncRewake?: boolean;
  };
  if ('shell' in handler) delete handler.shell;
  if ('asyncRewake' in handler) delete handler.asyncRewake;
  return handler as HookHandler;
}

function parseGroup(value: unknown, where: string, event: HookEvent, problems: string[]): HookMatcher | undefined {
  const parsed = groupSchema.safeParse(value);
  if (!parsed.success) {
    problems.push(`${where}: ${issueText(parsed.error.issues)}; dropped`);
    return undefined;
  }
  const hooks = parsed.data.hooks
    .map((hook, index) => parseHook(hook, `${where}.hooks[${index}]`, event, problems))
    .filter((hook): hook is HookHandler => hook !== undefined);
  if (hooks.length === 0) return undefined;
  return { ...(parsed.data.matcher !== undefined ? { matcher: parsed.data.matcher } : {}), hooks };
}

/** Parses a `hooks` value: `{ Event: [ { matcher, hooks: [ { type: "command" | "http" | "prompt" | "agent", … } ] } ] }`. Never throws. */
export function parseHooksConfig(value: unknown): ParsedHooks {
  const problems: string[] = [];
  if (value === undefined || value === null) return { problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      problems: [
        'hooks must be a mapping of event names (SessionStart, PreToolUse, PostToolUse, Stop, …) to lists of {matcher, hooks}; ignored',
      ],
    };
  }
  const config: HooksConfig = {};
  for (const [event, groups] of Object.entries(value)) {
    if (!(hookEvents as readonly string[]).includes(event)) {
      problems.push(
        otherClaudeCodeEvents.includes(event)
          ? `hooks.${event}: this runtime does not fire ${event} (it fires ${hookEvents.join(', ')}); ignored`
          : `hooks.${event}: unknown event (use ${hookEvents.join(', ')}); ignored`,
      );
      continue;
    }
    if (!Array.isArray(groups)) {
      problems.push(`hooks.${event}: must be a list of {matcher, hooks}; ignored`);
      continue;
    }
    const parsed = groups
      .map((group, index) => parseGroup(group, `hooks.${event}[${index}]`, event as HookEvent, problems))
      .filter((group): group is HookMatcher => group !== undefined);
    if (parsed.length > 0) config[event as HookEvent] = parsed;
  }
  return { ...(Object.keys(config).length > 0 ? { hooks: config } : {}), problems };
}
