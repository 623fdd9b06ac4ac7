// Claude Code's `hooks` configuration, checked per entry: a bad one is dropped with a fix (docs/hooks.md).
import { z } from 'zod';
import {
  hookEvents,
  hookLimits,
  type HookCommand,
  type HookEvent,
  type HookMatcher,
  type HooksConfig,
} from '../shared/policy/hooks';

/** Claude Code events that mean nothing here (docs/hooks.md, "Events that do not fire here"): accepted, with a warning. */
const otherClaudeCodeEvents = [
  'ConfigChange',
  'InstructionsLoaded',
  'FileChanged',
  'Elicitation',
  'ElicitationResult',
  'TeammateIdle',
  'Setup',
];

const commandHookSchema = z.strictObject({
  type: z.literal('command', { error: 'type must be "command" (the only hook type this runtime runs)' }),
  command: z.string({ error: 'command must be a string' }).trim().min(1, { error: 'command must not be empty' }),
  timeout: z
    .number({ error: 'timeout must be a number of seconds' })
    .positive({ error: 'timeout must be a positive number of seconds' })
    .max(hookLimits.maxTimeoutSeconds, { error: `timeout must be at most ${hookLimits.maxTimeoutSeconds} seconds` })
    .optional(),
  // Claude Code's other command options: accepted, not acted on.
  statusMessage: z.string().optional(),
  once: z.boolean().optional(),
  async: z.boolean().optional(),
  shell: z.string().optional(),
});

const groupSchema = z.looseObject({
  matcher: z.string({ error: 'must be a string (a tool name, A|B, or a regular expression)' }).optional(),
  hooks: z.array(z.unknown(), { error: 'must be a list of {type: "command", command: "..."}' }),
});

/** A hooks configuration, and what was dropped from it. */
export interface ParsedHooks {
  hooks?: HooksConfig;
  problems: string[];
}

const issueText = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');

function parseHook(value: unknown, where: string, problems: string[]): HookCommand | undefined {
  if (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    (value as { type: unknown }).type !== 'command'
  ) {
    problems.push(
      `${where}: hooks of type ${JSON.stringify((value as { type: unknown }).type)} are not supported (only "command"); dropped`,
    );
    return undefined;
  }
  const parsed = commandHookSchema.safeParse(value);
  if (!parsed.success) {
    problems.push(`${where}: ${issueText(parsed.error.issues)}; dropped`);
    return undefined;
  }
  return {
    type: 'command',
    command: parsed.data.command,
    ...(parsed.data.timeout !== undefined ? { timeout: parsed.data.timeout } : {}),
  };
}

function parseGroup(value: unknown, where: string, problems: string[]): HookMatcher | undefined {
  const parsed = groupSchema.safeParse(value);
  if (!parsed.success) {
    problems.push(`${where}: ${issueText(parsed.error.issues)}; dropped`);
    return undefined;
  }
  const hooks = parsed.data.hooks
    .map((hook, index) => parseHook(hook, `${where}.hooks[${index}]`, problems))
    .filter((hook): hook is HookCommand => hook !== undefined);
  if (hooks.length === 0) return undefined;
  return { ...(parsed.data.matcher !== undefined ? { matcher: parsed.data.matcher } : {}), hooks };
}

/** Parses a `hooks` value: `{ Event: [ { matcher, hooks: [ { type: "command", command, timeout } ] } ] }`. Never throws. */
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
      .map((group, index) => parseGroup(group, `hooks.${event}[${index}]`, problems))
      .filter((group): group is HookMatcher => group !== undefined);
    if (parsed.length > 0) config[event as HookEvent] = parsed;
  }
  return { ...(Object.keys(config).length > 0 ? { hooks: config } : {}), problems };
}
