/** The lifecycle events' pure parts (docs/hooks.md, "Events"): selection, outputs, combination, error kinds. */
import { describe, expect, it } from 'vitest';
import { combineVerdicts, interpretHookRun, type HookVerdict } from '../../src/shared/policy/hook-outcome';
import { agentHooks, hookEvents, hooksFor, type HooksConfig } from '../../src/shared/policy/hooks';
import { parseHooksConfig } from '../../src/project/hooks-schema';
import { stopFailureKind } from '../../src/workflows/tools/hook-events';
import { Inbox } from '../../src/workflows/loop/inbox';

const group = (command: string, matcher?: string) => [
  { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command' as const, command }] },
];
const commandsOf = (hooks: readonly unknown[]) => hooks.map((hook) => (hook as { command?: string }).command);
const exit0 = (stdout: string) => ({ exitCode: 0, stdout, stderr: '' });
const output = (value: unknown) => exit0(JSON.stringify(value));

describe('which hooks an event selects', () => {
  it('matches SessionStart on its source, Notification on its type, StopFailure on its error kind', () => {
    const config: HooksConfig = {
      SessionStart: group('on-compact', 'compact'),
      Notification: group('on-permission', 'permission_prompt'),
      StopFailure: group('on-rate-limit', 'rate_limit|server_error'),
    };
    expect(commandsOf(hooksFor(config, 'SessionStart', 'compact'))).toEqual(['on-compact']);
    expect(commandsOf(hooksFor(config, 'SessionStart', 'startup'))).toEqual([]);
    expect(commandsOf(hooksFor(config, 'Notification', 'idle_prompt'))).toEqual([]);
    expect(commandsOf(hooksFor(config, 'StopFailure', 'server_error'))).toEqual(['on-rate-limit']);
  });

  it('ignores a matcher on the events Claude Code gives none', () => {
    for (const event of ['UserPromptSubmit', 'TaskCreated', 'TaskCompleted', 'WorktreeCreate', 'CwdChanged'] as const) {
      expect(commandsOf(hooksFor({ [event]: group('x', 'Bash') }, event, 'anything')), event).toEqual(['x']);
    }
  });

  it("gives a subagent no SessionStart or SessionEnd (the session is the root's), and the root no Subagent events", () => {
    const settings: HooksConfig = {
      SessionStart: group('start'),
      SessionEnd: group('end'),
      Stop: group('stop'),
      SubagentStop: group('sub-stop'),
      UserPromptSubmit: group('prompt'),
      PermissionRequest: group('ask'),
    };
    const definition: HooksConfig = { SessionStart: group('own-start'), Stop: group('own-stop') };
    const child = agentHooks(settings, definition, true)!;
    expect(Object.keys(child).sort()).toEqual(['PermissionRequest', 'SubagentStop', 'UserPromptSubmit']);
    expect(commandsOf(hooksFor(child, 'SubagentStop', 'general-purpose'))).toEqual(['sub-stop', 'own-stop']);
    const root = agentHooks(settings, definition, false)!;
    expect(commandsOf(hooksFor(root, 'SessionStart', 'startup'))).toEqual(['start', 'own-start']);
    expect(root.SubagentStop).toBeUndefined();
  });
});

describe("what the new events' outputs mean", () => {
  it('PermissionRequest: decision.behavior allows or denies, with its message', () => {
    const allow = interpretHookRun(
      'PermissionRequest',
      'c',
      output({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }),
    );
    expect(allow).toMatchObject({ kind: 'success', permission: 'allow' });
    const deny = interpretHookRun(
      'PermissionRequest',
      'c',
      output({ hookSpecificOutput: { decision: { behavior: 'deny', message: 'NO' } } }),
    );
    expect(deny).toMatchObject({ permission: 'deny', reason: 'NO' });
    // A PreToolUse-style answer means nothing to PermissionRequest.
    expect(
      interpretHookRun('PermissionRequest', 'c', output({ hookSpecificOutput: { permissionDecision: 'allow' } }))
        .permission,
    ).toBeUndefined();
    // A behavior outside allow/deny is a bad output: ignored, with a notice.
    const bad = interpretHookRun(
      'PermissionRequest',
      'c',
      output({ hookSpecificOutput: { decision: { behavior: 'maybe' } } }),
    );
    expect(bad.permission).toBeUndefined();
    expect(bad.notice).toMatch(/ignored/);
  });

  it('PreToolUse may defer; PermissionDenied may offer a retry', () => {
    expect(
      interpretHookRun('PreToolUse', 'c', output({ hookSpecificOutput: { permissionDecision: 'defer' } })).permission,
    ).toBe('defer');
    expect(interpretHookRun('PermissionDenied', 'c', output({ hookSpecificOutput: { retry: true } })).retry).toBe(true);
    expect(
      interpretHookRun('PermissionDenied', 'c', output({ hookSpecificOutput: { retry: false } })).retry,
    ).toBeUndefined();
    expect(interpretHookRun('PostToolUse', 'c', output({ hookSpecificOutput: { retry: true } })).retry).toBeUndefined();
  });

  it('plain stdout is context for UserPromptSubmit and SessionStart only; additionalContext reaches the model where it can', () => {
    expect(interpretHookRun('UserPromptSubmit', 'c', exit0('CONTEXT\n')).additionalContext).toBe('CONTEXT');
    expect(interpretHookRun('SessionStart', 'c', exit0('CONTEXT')).additionalContext).toBe('CONTEXT');
    expect(interpretHookRun('PostToolUse', 'c', exit0('CONTEXT')).additionalContext).toBeUndefined();
    const context = output({ hookSpecificOutput: { additionalContext: 'MORE' } });
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PostToolUseFailure'] as const)
      expect(interpretHookRun(event, 'c', context).additionalContext, event).toBe('MORE');
    for (const event of ['Notification', 'SessionEnd', 'StopFailure', 'PostCompact', 'CwdChanged'] as const)
      expect(interpretHookRun(event, 'c', context).additionalContext, event).toBeUndefined();
  });

  it('exit 2 and decision "block" block UserPromptSubmit, PreCompact and the task events with the reason', () => {
    for (const event of ['UserPromptSubmit', 'PreCompact', 'TaskCreated', 'TaskCompleted'] as const) {
      expect(interpretHookRun(event, 'c', { exitCode: 2, stdout: '', stderr: 'WHY\n' }), event).toMatchObject({
        blocked: true,
        reason: 'WHY',
      });
      expect(interpretHookRun(event, 'c', output({ decision: 'block', reason: 'R' })), event).toMatchObject({
        blocked: true,
        reason: 'R',
      });
    }
  });

  it('combines: deny > defer > ask > allow, and one retry is enough', () => {
    const verdict = (permission: HookVerdict['permission']): HookVerdict => ({
      command: 'c',
      kind: 'success',
      permission,
    });
    expect(combineVerdicts([verdict('allow'), verdict('defer'), verdict('ask')]).permission).toBe('defer');
    expect(combineVerdicts([verdict('defer'), verdict('deny')]).permission).toBe('deny');
    expect(
      combineVerdicts([
        { command: 'a', kind: 'success' },
        { command: 'b', kind: 'success', retry: true },
      ]).retry,
    ).toBe(true);
    expect(combineVerdicts([{ command: 'a', kind: 'success' }]).retry).toBeUndefined();
  });
});

describe('StopFailure error kinds', () => {
  it("reads Claude Code's kinds from the runtime's failure texts, else unknown", () => {
    expect(stopFailureKind('ModelInvocationError.RateLimit: 429 rate_limit_error')).toBe('rate_limit');
    expect(stopFailureKind('ModelInvocationError.Authentication: 401 invalid x-api-key')).toBe('authentication_failed');
    expect(stopFailureKind('Your credit balance is too low')).toBe('billing_error');
    expect(stopFailureKind('ModelInvocationError.InvalidRequest: 400 messages: roles must alternate')).toBe(
      'invalid_request',
    );
    expect(stopFailureKind('ModelInvocationError.Overloaded: 529')).toBe('server_error');
    expect(stopFailureKind('a UserPromptSubmit hook blocked the prompt: no')).toBe('unknown');
    expect(stopFailureKind('')).toBe('unknown');
  });
});

describe('the hooks configuration', () => {
  it('accepts every event fired here, and warns about the ones that do not fire', () => {
    const config = Object.fromEntries(hookEvents.map((event) => [event, group(`run-${event}`)]));
    const parsed = parseHooksConfig({ ...config, InstructionsLoaded: group('x'), Elicitation: [], Bogus: [] });
    expect(Object.keys(parsed.hooks!)).toEqual([...hookEvents]);
    expect(parsed.problems).toEqual([
      expect.stringMatching(/^hooks\.InstructionsLoaded: this runtime does not fire InstructionsLoaded/),
      expect.stringMatching(/^hooks\.Elicitation: this runtime does not fire Elicitation/),
      expect.stringMatching(/^hooks\.Bogus: unknown event/),
    ]);
  });
});

describe('the inbox drained as items (for UserPromptSubmit)', () => {
  it('keeps arrival order and kinds, and what was drained counts as unsent until a model call', () => {
    const inbox = new Inbox();
    inbox.pushMessage('user', 'hello');
    inbox.pushNotification('<task-notification/>');
    inbox.pushSteer('user', 'faster');
    const items = inbox.drainItems();
    expect(items.map((item) => [item.kind, item.body])).toEqual([
      ['message', 'hello'],
      ['notification', undefined],
      ['steer', 'faster'],
    ]);
    expect(inbox.size).toBe(0);
    // Not yet seen by the model: a finishing agent reports them as undelivered.
    expect(inbox.seal()).toEqual([items[0]!.text, items[2]!.text]);
  });
});
