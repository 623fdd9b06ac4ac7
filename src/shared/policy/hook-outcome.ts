// What a hook run means by Claude Code's exit codes and JSON output, and how one event's verdicts combine (docs/hooks.md).
import type { SandboxSettings } from './sandbox';
import { z } from 'zod';
import type { HookEvent } from './hooks';
import type { HttpHook, PromptHook } from './hook-handlers';
import type { ModelCallBudget } from '../budget/budget';
import type { TokenUsage } from '../model/messages';
import { buildPermissionUpdateSchema, type PermissionUpdate } from './permission-update-schema';

/** Input of the runHook activity: one command, one event. */
export interface HookRunInput {
  event: HookEvent;
  command: string;
  timeoutMs: number;
  /** Where the command runs (the agent's cwd). */
  cwd: string;
  /** CLAUDE_PROJECT_DIR: the project whose settings configured the hooks. */
  projectDir: string;
  /** The JSON written to the command's stdin. */
  payload: Record<string, unknown>;
  /** The tree's sandbox settings: what the hook may also write (docs/security.md). */
  sandbox?: SandboxSettings;
  /** An http or prompt hook (`command` is then its label); absent: `command` is a shell command. */
  handler?: HttpHook | PromptHook;
  /** An async command hook: it runs to its end even when the agent's run ends or is cancelled meanwhile. */
  async?: boolean;
  /** A prompt hook: who calls (the model server's headers), and the tree's reservation its call charges. */
  agentId?: string;
  budget?: ModelCallBudget;
}

/** How the command ended, with its output (each stream capped). */
export interface HookProcessResult {
  /** Null when it was killed (timeout, cancellation) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
  /** It could not be started (the reason). */
  spawnError?: string;
  /** Characters dropped from stdout and stderr beyond the cap. */
  truncatedChars?: number;
}

/** The meaning of one hook run. */
export interface HookVerdict {
  command: string;
  /** success: exit 0; blocking: exit 2; error: anything else (a non-blocking error: shown, the run goes on). */
  kind: 'success' | 'blocking' | 'error';
  /** PreToolUse: its permission decision (exit 2 and `decision: "block"` are a deny); PermissionRequest: `decision.behavior`. */
  permission?: 'allow' | 'deny' | 'ask' | 'defer';
  /** PermissionDenied: `retry: true`, the model is told it may try the call again. */
  retry?: boolean;
  /** Text for the model: why a tool call was refused, what a PostToolUse hook objects to, why a Stop hook keeps the agent going. */
  reason?: string;
  /** `decision: "block"` or exit 2. */
  blocked?: boolean;
  /** `continue: false`: the agent stops after this event, with this reason. */
  stop?: string;
  /** Context added for the model (PostToolUse, SubagentStart, PreToolUse). */
  additionalContext?: string;
  /** PreToolUse: the input the call runs with instead of the model's (`hookSpecificOutput.updatedInput`). */
  updatedInput?: Record<string, unknown>;
  /** PermissionRequest `allow`: permission updates to apply (`decision.updatedPermissions`). */
  updatedPermissions?: PermissionUpdate[];
  /** PermissionRequest `deny` with `decision.interrupt: true`: the agent stops after this call. */
  interrupt?: boolean;
  /** For the person watching: `systemMessage`, or what went wrong (non-blocking error, timeout, bad JSON). */
  notice?: string;
  /** WorktreeCreate: the path it gave (trimmed stdout, or `hookSpecificOutput.worktreePath`), unchecked. */
  worktreePath?: string;
}

/** Claude Code's hook JSON output; unknown fields are ignored. */
const buildHookOutputSchema = () =>
  z.looseObject({
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    suppressOutput: z.boolean().optional(),
    systemMessage: z.string().optional(),
    decision: z.enum(['block', 'approve']).optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .looseObject({
        hookEventName: z.string().optional(),
        permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
        permissionDecisionReason: z.string().optional(),
        additionalContext: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        // PermissionRequest's answer, and PermissionDenied's offer to retry.
        decision: z
          .looseObject({
            behavior: z.enum(['allow', 'deny']),
            updatedInput: z.record(z.string(), z.unknown()).optional(),
            updatedPermissions: buildPermissionUpdateSchema().optional(),
            message: z.string().optional(),
            interrupt: z.boolean().optional(),
          })
          .optional(),
        retry: z.boolean().optional(),
      })
      .optional(),
  });
type HookOutput = z.infer<ReturnType<typeof buildHookOutputSchema>>;
// Built on first use: the workflow imports this module for combineVerdicts, and each run loads it anew.
let hookOutputSchema: ReturnType<typeof buildHookOutputSchema> | undefined;

/** Stdout as Claude Code's JSON output, or why it is not (plain text is not an error: it is kept as text). */
export function parseHookOutput(stdout: string): { output: HookOutput } | { text: string } | { problem: string } {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith('{')) return { text: trimmed };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { text: trimmed };
  }
  const parsed = (hookOutputSchema ??= buildHookOutputSchema()).safeParse(value);
  if (!parsed.success)
    return {
      problem: `its JSON output was ignored: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'output'}: ${issue.message}`).join('; ')}`,
    };
  return { output: parsed.data };
}

/** Events whose `additionalContext` reaches the model (UserPromptSubmit and SessionStart also take plain stdout). */
const eventsWithContext: readonly HookEvent[] = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SubagentStart',
];

const clip = (text: string, max = 2_000) => (text.length > max ? `${text.slice(0, max)}…` : text);

function fromJson(event: HookEvent, output: HookOutput, verdict: HookVerdict): HookVerdict {
  const specific = output.hookSpecificOutput;
  if (output.continue === false) verdict.stop = output.stopReason?.trim() || 'a hook stopped the agent';
  if (output.systemMessage) verdict.notice = output.systemMessage;
  if (specific?.additionalContext && eventsWithContext.includes(event))
    verdict.additionalContext = specific.additionalContext;
  if (event === 'WorktreeCreate' && typeof specific?.worktreePath === 'string')
    verdict.worktreePath = specific.worktreePath;
  if (event === 'PermissionRequest') {
    if (specific?.decision) {
      verdict.permission = specific.decision.behavior;
      if (specific.decision.message) verdict.reason = specific.decision.message;
      if (specific.decision.behavior === 'allow' && specific.decision.updatedInput)
        verdict.updatedInput = specific.decision.updatedInput;
      if (specific.decision.behavior === 'allow' && specific.decision.updatedPermissions?.length)
        verdict.updatedPermissions = specific.decision.updatedPermissions;
      if (specific.decision.behavior === 'deny' && specific.decision.interrupt === true) verdict.interrupt = true;
    }
  } else if (event === 'PermissionDenied') {
    if (specific?.retry === true) verdict.retry = true;
  } else if (event === 'PreToolUse') {
    const legacy = output.decision === 'approve' ? 'allow' : output.decision === 'block' ? 'deny' : undefined;
    const permission = specific?.permissionDecision ?? legacy;
    if (permission) verdict.permission = permission;
    const reason = specific?.permissionDecisionReason ?? output.reason;
    if (reason) verdict.reason = reason;
    if (permission === 'deny') verdict.blocked = true;
    else if (specific?.updatedInput) verdict.updatedInput = specific.updatedInput;
  } else if (output.decision === 'block') {
    verdict.blocked = true;
    verdict.reason = output.reason?.trim() || `a ${event} hook blocked without a reason`;
  }
  return verdict;
}

/** The verdict of one run: exit 2 blocks with stderr; exit 0 reads JSON stdout; other exits, timeouts and spawn failures are non-blocking errors. */
export function interpretHookRun(event: HookEvent, command: string, run: HookProcessResult): HookVerdict {
  if (run.spawnError) return { command, kind: 'error', notice: `the hook could not be started: ${run.spawnError}` };
  if (run.timedOut)
    return {
      command,
      kind: 'error',
      notice: `the hook timed out and was killed${run.stderr.trim() ? `: ${clip(run.stderr.trim())}` : ''}`,
    };
  if (run.exitCode === 2) {
    const reason = run.stderr.trim() || `a ${event} hook exited with code 2 without a message on stderr`;
    return {
      command,
      kind: 'blocking',
      blocked: true,
      reason,
      // As in Claude Code, exit 2 (a prompt or agent hook's `ok: false`) denies at PreToolUse and PermissionRequest.
      ...(event === 'PreToolUse' || event === 'PermissionRequest' ? { permission: 'deny' as const } : {}),
    };
  }
  if (run.exitCode !== 0) {
    const detail = run.stderr.trim() || run.stdout.trim();
    return {
      command,
      kind: 'error',
      notice: `the hook failed with ${run.exitCode === null ? 'no exit code (killed)' : `exit code ${run.exitCode}`}${detail ? `: ${clip(detail)}` : ''}`,
    };
  }
  const parsed = parseHookOutput(run.stdout);
  if ('problem' in parsed) return { command, kind: 'success', notice: parsed.problem };
  // A WorktreeCreate command prints its worktree's path (docs/worktrees.md, "Worktrees made by hooks").
  if ('text' in parsed && event === 'WorktreeCreate') return { command, kind: 'success', worktreePath: parsed.text };
  // As in Claude Code, plain stdout of these two events is context for the model.
  if ('text' in parsed)
    return parsed.text && (event === 'UserPromptSubmit' || event === 'SessionStart')
      ? { command, kind: 'success', additionalContext: parsed.text }
      : { command, kind: 'success' };
  return fromJson(event, parsed.output, { command, kind: 'success' });
}

/** The verdicts of one event's hooks, combined (deny > ask > allow; every reason and context kept, in order). */
export interface CombinedVerdict {
  permission?: 'allow' | 'deny' | 'ask' | 'defer';
  /** PermissionDenied: a hook said the model may retry. */
  retry?: boolean;
  blocked: boolean;
  /** Reasons of the hooks that blocked or decided, joined. */
  reason?: string;
  stop?: string;
  additionalContext?: string;
  /** PreToolUse: the input to run the call with (the last hook that gave one wins, as hooks run in order of configuration). */
  updatedInput?: Record<string, unknown>;
  /** PermissionRequest `allow`: every allowing hook's updates, in order of configuration. */
  updatedPermissions?: PermissionUpdate[];
  /** PermissionRequest `deny`: a denying hook asked to interrupt the agent. */
  interrupt?: boolean;
  notices: string[];
  /** WorktreeCreate: each path a hook gave, in order of configuration. */
  worktreePaths?: Array<{ command: string; path: string }>;
  /** `<hook>: <why>` of each hook that did not succeed (exit 2, another exit code, a timeout, not run): WorktreeCreate fails on any. */
  failures?: string[];
}

export function combineVerdicts(verdicts: readonly HookVerdict[]): CombinedVerdict {
  // Claude Code's precedence: deny > defer > ask > allow.
  const rank = { allow: 1, ask: 2, defer: 3, deny: 4 } as const;
  let permission: CombinedVerdict['permission'];
  for (const verdict of verdicts) {
    if (verdict.permission && (!permission || rank[verdict.permission] > rank[permission]))
      permission = verdict.permission;
  }
  const blocking = verdicts.filter((verdict) => verdict.blocked || (permission && verdict.permission === permission));
  const reasons = blocking.map((verdict) => verdict.reason).filter((reason): reason is string => !!reason);
  const contexts = verdicts.map((verdict) => verdict.additionalContext).filter((text): text is string => !!text);
  const stop = verdicts.find((verdict) => verdict.stop !== undefined)?.stop;
  const updatedInput = [...verdicts].reverse().find((verdict) => verdict.updatedInput)?.updatedInput;
  // Updates come with an allow, an interrupt with a deny: only the winning decision's count.
  const updatedPermissions = verdicts.flatMap((verdict) => verdict.updatedPermissions ?? []);
  const interrupt = verdicts.some((verdict) => verdict.interrupt);
  const worktreePaths = verdicts.flatMap((verdict) =>
    verdict.worktreePath !== undefined ? [{ command: verdict.command, path: verdict.worktreePath }] : [],
  );
  const failures = verdicts
    .filter((verdict) => verdict.kind !== 'success')
    .map(
      (verdict) =>
        `${verdict.command}: ${verdict.kind === 'blocking' ? `exit code 2: ${verdict.reason ?? ''}` : (verdict.notice ?? 'failed')}`,
    );
  return {
    ...(updatedPermissions.length > 0 && permission === 'allow' ? { updatedPermissions } : {}),
    ...(interrupt && permission === 'deny' ? { interrupt } : {}),
    ...(worktreePaths.length > 0 ? { worktreePaths } : {}),
    ...(failures.length > 0 ? { failures } : {}),
    ...(updatedInput && permission !== 'deny' ? { updatedInput } : {}),
    ...(permission ? { permission } : {}),
    ...(verdicts.some((verdict) => verdict.retry) ? { retry: true } : {}),
    blocked: verdicts.some((verdict) => verdict.blocked),
    ...(reasons.length > 0 ? { reason: reasons.join('\n') } : {}),
    ...(stop !== undefined ? { stop } : {}),
    ...(contexts.length > 0 ? { additionalContext: contexts.join('\n') } : {}),
    notices: verdicts.filter((verdict) => verdict.notice).map((verdict) => `${verdict.command}: ${verdict.notice}`),
  };
}

/** What the runHook activity returns: how the command ended (output capped) and what that means. */
export interface HookRunResult extends HookProcessResult {
  verdict: HookVerdict;
  /** A prompt hook's model usage (the workflow adds it to the agent's). */
  usage?: TokenUsage;
}
