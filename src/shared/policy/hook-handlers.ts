// The hook handler types of Claude Code (command, http, prompt, agent) and their defaults (docs/hooks.md, "Handler types").

/** Options every handler type has. */
interface HandlerCommon {
  /** Seconds before the handler is stopped (defaults: {@link defaultHookTimeoutSeconds}). */
  timeout?: number;
  /** Shown while the handler runs (the activity's summary in the Temporal UI and `watch`). */
  statusMessage?: string;
  /** Runs once in an agent, then is removed for it (docs/hooks.md, "once"). */
  once?: boolean;
}

/** `type: "command"`: a shell command, the event's JSON on its stdin. */
export interface CommandHook extends HandlerCommon {
  type: 'command';
  command: string;
  /** Runs without blocking the event; what it says reaches the agent at its next turn boundary. */
  async?: boolean;
}

/** `type: "http"`: the event's JSON POSTed to `url`; the response body is read as a command's stdout. */
export interface HttpHook extends HandlerCommon {
  type: 'http';
  url: string;
  /** Header values may name environment variables (`$VAR`, `${VAR}`) listed in `allowedEnvVars`. */
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
}

/** `type: "prompt"`: one model call that answers `{"ok": true|false, "reason": "..."}`. */
export interface PromptHook extends HandlerCommon {
  type: 'prompt';
  /** `$ARGUMENTS` is replaced by the event's JSON (appended when absent). */
  prompt: string;
  model?: string;
}

/** `type: "agent"`: a read-only subagent (Read, Grep, Glob) that checks a condition and answers ok/reason. */
export interface AgentHook extends HandlerCommon {
  type: 'agent';
  prompt: string;
  model?: string;
}

/** One hook handler (Claude Code's `type`s). */
export type HookHandler = CommandHook | HttpHook | PromptHook | AgentHook;
export type HookHandlerType = HookHandler['type'];

/** Claude Code's default timeouts, in seconds (http as command: Claude Code names none of its own). */
export const defaultHookTimeoutSeconds: Record<HookHandlerType, number> = {
  command: 600,
  http: 600,
  prompt: 30,
  agent: 60,
};

/** The handler's timeout in milliseconds. */
export function hookTimeoutMs(hook: HookHandler): number {
  return Math.round((hook.timeout ?? defaultHookTimeoutSeconds[hook.type]) * 1000);
}

/** What names a handler in notices, listings and deduplication (Claude Code: commands by command, http by URL). */
export function hookLabel(hook: HookHandler): string {
  switch (hook.type) {
    case 'command':
      return hook.command;
    case 'http':
      return `http ${hook.url}`;
    case 'prompt':
    case 'agent':
      return `${hook.type} ${JSON.stringify(hook.prompt.length > 60 ? `${hook.prompt.slice(0, 60)}…` : hook.prompt)}`;
  }
}

/** Identical handlers run once per event: this key says which are identical. */
export function hookIdentity(hook: HookHandler): string {
  switch (hook.type) {
    case 'command':
      return `command\u0000${hook.command}`;
    case 'http':
      return `http\u0000${hook.url}`;
    case 'prompt':
    case 'agent':
      return `${hook.type}\u0000${hook.model ?? ''}\u0000${hook.prompt}`;
  }
}

/** Events whose decision a prompt or agent hook can make (Claude Code's list); SessionStart takes commands only; others commands and http. */
const decidingEvents = [
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'PreToolUse',
  'Stop',
  'SubagentStop',
  'TaskCompleted',
  'TaskCreated',
  'UserPromptSubmit',
];

/** The handler types an event takes, as in Claude Code. */
export function handlerTypesFor(event: string): readonly HookHandlerType[] {
  if (event === 'SessionStart') return ['command'];
  return decidingEvents.includes(event) ? ['command', 'http', 'prompt', 'agent'] : ['command', 'http'];
}
