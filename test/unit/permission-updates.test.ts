// A PermissionRequest hook's updatedPermissions: the shape checked, and what an agent applies (docs/hooks.md).
import { describe, expect, it } from 'vitest';
import { interpretHookRun, combineVerdicts } from '../../src/shared/policy/hook-outcome';
import {
  applyPermissionUpdates,
  modeCeiling,
  sessionRuleOrigin,
  withSessionRules,
} from '../../src/shared/policy/permission-updates';

const run = (output: unknown) =>
  interpretHookRun('PermissionRequest', 'hook', { exitCode: 0, stdout: JSON.stringify(output), stderr: '' });
const decision = (value: Record<string, unknown>) => ({
  hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: value },
});

describe('PermissionRequest updatedPermissions', () => {
  it('reads session rules and a mode with an allow, an interrupt with a deny; combined, only the winning decision’s count', () => {
    const allow = run(
      decision({
        behavior: 'allow',
        updatedPermissions: [
          {
            type: 'addRules',
            rules: [{ toolName: 'Bash', ruleContent: 'npm test' }],
            behavior: 'allow',
            destination: 'session',
          },
        ],
        interrupt: true,
      }),
    );
    expect(allow.updatedPermissions).toHaveLength(1);
    expect(allow.interrupt).toBeUndefined();
    const deny = run(decision({ behavior: 'deny', interrupt: true, updatedPermissions: [] }));
    expect(deny.interrupt).toBe(true);
    expect(combineVerdicts([allow, deny])).toMatchObject({ permission: 'deny', interrupt: true });
    expect(combineVerdicts([allow, deny]).updatedPermissions).toBeUndefined();
    expect(combineVerdicts([allow]).updatedPermissions).toHaveLength(1);
  });

  it('ignores the whole output when an update is malformed or too large (hostile input)', () => {
    for (const updatedPermissions of [
      [
        {
          type: 'addRules',
          rules: [{ toolName: 'Bash', ruleContent: 'x'.repeat(1_001) }],
          behavior: 'allow',
          destination: 'session',
        },
      ],
      [{ type: 'setMode', mode: 'bubble', destination: 'session' }],
      [{ type: 'setMode', mode: 'acceptEdits', destination: 'elsewhere' }],
      [{ type: 'grantEverything', destination: 'session' }],
      Array.from({ length: 21 }, () => ({ type: 'setMode', mode: 'plan', destination: 'session' })),
      'addRules',
    ]) {
      const verdict = run(decision({ behavior: 'allow', updatedPermissions }));
      expect(verdict.permission).toBeUndefined();
      expect(verdict.notice).toContain('its JSON output was ignored');
    }
  });

  it('applies session rules and modes up to the ceiling; refuses other destinations, directories and a higher mode', () => {
    const applied = applyPermissionUpdates(
      {},
      [
        {
          type: 'addRules',
          rules: [{ toolName: 'Bash', ruleContent: 'npm test' }, { toolName: 'Read' }],
          behavior: 'allow',
          destination: 'session',
        },
        {
          type: 'addRules',
          rules: [{ toolName: 'Bash', ruleContent: 'npm test' }],
          behavior: 'allow',
          destination: 'session',
        },
        { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'userSettings' },
        { type: 'addRules', rules: [{ toolName: 'not a tool!' }], behavior: 'deny', destination: 'session' },
        { type: 'setMode', mode: 'bypassPermissions', destination: 'session' },
        { type: 'setMode', mode: 'plan', destination: 'session' },
        { type: 'addDirectories', directories: ['/etc'], destination: 'session' },
      ],
      'default',
    );
    expect(applied.permissions.mode).toBe('plan');
    expect(applied.permissions.rules?.allow?.map((rule) => rule.text)).toEqual(['Bash(npm test)', 'Read']);
    expect(applied.permissions.rules?.allow?.[0]).toMatchObject({
      tool: 'Bash',
      content: 'npm test',
      file: sessionRuleOrigin,
    });
    expect(applied.notices).toEqual([
      expect.stringContaining('addRules for userSettings was not applied'),
      expect.stringContaining('"not a tool!"'),
      'setMode bypassPermissions was refused: this agent may not be more permissive than default',
      expect.stringContaining('addDirectories was not applied'),
    ]);
    const removed = applyPermissionUpdates(
      applied.permissions,
      [{ type: 'removeRules', rules: [{ toolName: 'Read' }], behavior: 'allow', destination: 'session' }],
      'default',
    );
    expect(removed.permissions.rules?.allow?.map((rule) => rule.text)).toEqual(['Bash(npm test)']);
    expect(
      withSessionRules(
        { deny: [{ tool: 'Bash', content: '', text: 'Bash', file: 'settings.json' }] },
        removed.permissions.rules,
      ),
    ).toMatchObject({
      deny: [{ text: 'Bash' }],
      allow: [{ text: 'Bash(npm test)' }],
    });
  });

  it('never lets a subagent go above its start mode; a root may accept edits', () => {
    expect(modeCeiling('default', true)).toBe('default');
    expect(modeCeiling('plan', true)).toBe('plan');
    expect(modeCeiling('default', false)).toBe('acceptEdits');
    expect(modeCeiling('bypassPermissions', false)).toBe('bypassPermissions');
    expect(modeCeiling('bubble', true)).toBe('bubble');
  });
});
