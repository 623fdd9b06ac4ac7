// Hook configuration types and which hooks an event selects (docs/hooks.md); pure, for workflow code.
import { hookIdentity, hookLabel, type HookHandler } from './hook-handlers';

/** The events this runtime fires (Claude Code's names; docs/hooks.md, "Events"). */
export const hookEvents = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'StopFailure',
  'PreCompact',
  'PostCompact',
  'TaskCreated',
  'TaskCompleted',
  'WorktreeCreate',
  'WorktreeRemove',
  'CwdChanged',
  'ConfigChange',
] as const;
export type HookEvent = (typeof hookEvents)[number];

/** Events whose groups have no matcher in Claude Code: a configured one is ignored. */
export const eventsWithoutMatcher: readonly HookEvent[] = [
  'UserPromptSubmit',
  'Stop',
  'TaskCreated',
  'TaskCompleted',
  'WorktreeCreate',
  'WorktreeRemove',
  'CwdChanged',
];

/** How a session began (SessionStart's `source` and matcher); `clear` does not happen here. */
export type SessionStartSource = 'startup' | 'resume' | 'compact';
/** Why a session ended (SessionEnd's `reason` and matcher); `clear`, `logout`, `bypass_permissions_disabled` do not happen here. */
export type SessionEndReason = 'prompt_input_exit' | 'other';
/** Why an agent waits for someone (Notification's `notification_type` and matcher). */
export type NotificationType = 'permission_prompt' | 'idle_prompt';
/** The kind of error an agent ended on (StopFailure's `error` and matcher), Claude Code's vocabulary. */
export type StopFailureKind =
  | 'rate_limit'
  | 'authentication_failed'
  | 'billing_error'
  | 'invalid_request'
  | 'server_error'
  | 'max_output_tokens'
  | 'unknown';

/** The fields each event adds to the common ones (`session_id`, `cwd`, `permission_mode`, `hook_event_name`, …). */
export interface HookEventFields {
  SessionStart: { source: SessionStartSource; model: string };
  SessionEnd: { reason: SessionEndReason };
  UserPromptSubmit: { prompt: string };
  PreToolUse: { tool_name: string; tool_input: Record<string, unknown>; tool_use_id: string };
  PermissionRequest: { tool_name: string; tool_input: Record<string, unknown>; permission_suggestions: unknown[] };
  PermissionDenied: { tool_name: string; tool_input: Record<string, unknown>; tool_use_id: string; reason: string };
  PostToolUse: { tool_name: string; tool_input: Record<string, unknown>; tool_use_id: string; tool_response: unknown };
  PostToolUseFailure: {
    tool_name: string;
    tool_input: Record<string, unknown>;
    tool_use_id: string;
    error: string;
    is_interrupt: boolean;
  };
  Notification: { message: string; title: string; notification_type: NotificationType };
  SubagentStart: Record<string, never>;
  SubagentStop: { stop_hook_active: boolean; last_assistant_message: string };
  Stop: { stop_hook_active: boolean; last_assistant_message: string };
  StopFailure: { error: StopFailureKind; error_details: string; last_assistant_message: string };
  PreCompact: { trigger: 'manual' | 'auto'; custom_instructions: string };
  PostCompact: { trigger: 'manual' | 'auto'; compact_summary: string };
  TaskCreated: { task_id: string; task_subject: string; task_description: string; team_name: string };
  TaskCompleted: { task_id: string; task_subject: string; task_description: string; team_name: string };
  // The hook makes the worktree (docs/worktrees.md): `name` is its slug, and the hook prints the path.
  WorktreeCreate: { name: string };
  WorktreeRemove: { worktree_path: string };
  CwdChanged: { old_cwd: string; new_cwd: string };
  ConfigChange: { source: ConfigChangeSource; file_path: string };
}

/** Which settings file changed (ConfigChange's `source` and matcher); `policy_settings` and `skills` are not watched here. */
export type ConfigChangeSource = 'user_settings' | 'project_settings' | 'local_settings';

/** One hook handler (docs/hooks.md, "Handler types"); the name is kept from when commands were the only type. */
export type HookCommand = HookHandler;

/** Hooks of one event under one matcher: a tool name or regex (tool events), an agent type (Subagent events). */
export interface HookMatcher {
  /** Absent, empty or `*`: every tool (or agent type). */
  matcher?: string;
  hooks: HookCommand[];
}

/** `{ "PreToolUse": [{ "matcher": "Bash", "hooks": [...] }], ... }`. */
export type HooksConfig = Partial<Record<HookEvent, HookMatcher[]>>;

/** Limits of hook runs. */
export const hookLimits = {
  maxTimeoutSeconds: 600,
  /** Characters of stdout and of stderr kept from one run (the rest is dropped, and said so). */
  maxOutputChars: 10_000,
  /** Times in a row a Stop/SubagentStop hook may keep an agent going before the agent is let finish. */
  maxStopContinuations: 3,
} as const;

/** Whether a matcher selects a name, by Claude Code's rules: `*`/empty all; letters, digits, `_` and `|` exact names; else a JavaScript regex searched in the name (invalid: none). */
export function matcherSelects(matcher: string | undefined, name: string): boolean {
  const pattern = matcher?.trim() ?? '';
  if (pattern === '' || pattern === '*') return true;
  if (/^[A-Za-z0-9_|]+$/.test(pattern)) return pattern.split('|').includes(name);
  try {
    return new RegExp(pattern).test(name);
  } catch {
    return false;
  }
}

/** The commands an event runs for `name` (tool or agent type), in configuration order, identical commands once. */
export function hooksFor(config: HooksConfig | undefined, event: HookEvent, name: string | undefined): HookCommand[] {
  const selected: HookCommand[] = [];
  const seen = new Set<string>();
  for (const group of config?.[event] ?? []) {
    if (name !== undefined && !eventsWithoutMatcher.includes(event) && !matcherSelects(group.matcher, name)) continue;
    for (const hook of group.hooks) {
      if (seen.has(hookIdentity(hook))) continue;
      seen.add(hookIdentity(hook));
      selected.push(hook);
    }
  }
  return selected;
}

/** Configurations merged: each event's matcher groups one after the other. */
export function mergeHooks(...configs: (HooksConfig | undefined)[]): HooksConfig | undefined {
  const merged: HooksConfig = {};
  for (const config of configs) {
    for (const event of hookEvents) {
      const groups = config?.[event];
      if (groups?.length) merged[event] = [...(merged[event] ?? []), ...groups];
    }
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** The settings' and definition's hooks of one agent; a subagent's `Stop` runs as `SubagentStop`, as in Claude Code. */
export function agentHooks(
  settings: HooksConfig | undefined,
  definition: HooksConfig | undefined,
  isSubagent: boolean,
): HooksConfig | undefined {
  if (!isSubagent) {
    const { SubagentStart: _start, SubagentStop: _stop, ...own } = settings ?? {};
    return mergeHooks(own, definition);
  }
  // A session is the tree's root: a subagent has no SessionStart or SessionEnd of its own.
  const { Stop: _settingsStop, SessionStart: _start, SessionEnd: _end, ...tree } = settings ?? {};
  const { Stop: definitionStop, SessionStart: _ownStart, SessionEnd: _ownEnd, ...definitionRest } = definition ?? {};
  const converted: HooksConfig = definitionStop ? { SubagentStop: definitionStop } : {};
  return mergeHooks(tree, definitionRest, converted);
}

/** Hook commands of a configuration, counted (for listings). */
export function countHooks(config: HooksConfig | undefined): number {
  return hookEvents.reduce(
    (sum, event) => sum + (config?.[event] ?? []).reduce((count, group) => count + group.hooks.length, 0),
    0,
  );
}

/** One line per event and matcher (for `subagents agents`): `PreToolUse[Bash]: ./check.sh`. */
export function describeHooks(config: HooksConfig | undefined): string[] {
  const lines: string[] = [];
  for (const event of hookEvents) {
    for (const group of config?.[event] ?? []) {
      const matcher = group.matcher && group.matcher !== '*' ? `[${group.matcher}]` : '';
      lines.push(`${event}${matcher}: ${group.hooks.map(hookLabel).join(' ; ')}`);
    }
  }
  return lines;
}
