/** A prompt or agent hook's `ok: false` (exit 2) at the events that decide something, as Claude Code reads it. */
import { describe, expect, it } from 'vitest';
import { interpretPromptAnswer } from '../../src/shared/policy/hook-answers';
import { combineVerdicts, interpretHookRun } from '../../src/shared/policy/hook-outcome';

describe('ok: false and exit 2 at PermissionRequest', () => {
  it('denies the permission with the reason, as PreToolUse does', () => {
    const verdict = interpretPromptAnswer(
      'PermissionRequest',
      'prompt "May it?"',
      '{"ok": false, "reason": "no writes"}',
    );
    expect(verdict).toMatchObject({ kind: 'blocking', blocked: true, permission: 'deny', reason: 'no writes' });
    const combined = combineVerdicts([verdict, { command: 'other', kind: 'success' }]);
    expect(combined).toMatchObject({ permission: 'deny', reason: 'no writes' });
    const command = interpretHookRun('PermissionRequest', 'check.sh', {
      exitCode: 2,
      stdout: '',
      stderr: 'NOT-THIS\n',
    });
    expect(command).toMatchObject({ permission: 'deny', reason: 'NOT-THIS' });
  });

  it('ok: true decides nothing there (a person is still asked), and exit 2 elsewhere sets no permission', () => {
    expect(interpretPromptAnswer('PermissionRequest', 'p', '{"ok": true}').permission).toBeUndefined();
    for (const event of ['UserPromptSubmit', 'TaskCreated', 'Stop'] as const)
      expect(interpretPromptAnswer(event, 'p', '{"ok": false, "reason": "r"}')).not.toHaveProperty('permission');
  });
});
