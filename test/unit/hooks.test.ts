import { describe, expect, it } from 'vitest';
import {
  combineVerdicts,
  interpretHookRun,
  parseHookOutput,
  type HookProcessResult,
} from '../../src/shared/policy/hook-outcome';
import {
  agentHooks,
  describeHooks,
  hooksFor,
  matcherSelects,
  mergeHooks,
  type HooksConfig,
} from '../../src/shared/policy/hooks';
import { decidePermission } from '../../src/workflows/tools/permissions';
import { hookLabel } from '../../src/shared/policy/hook-handlers';
import { expectYesNo } from '../helpers/unit-cases';

const command = (text: string) => ({ type: 'command' as const, command: text });
const run = (fields: Partial<HookProcessResult>): HookProcessResult => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  ...fields,
});

describe('matcherSelects', () => {
  it('selects everything with no matcher, an empty one or *', () => {
    for (const matcher of [undefined, '', '  ', '*']) expect(matcherSelects(matcher, 'Bash')).toBe(true);
  });
  it('matches names of letters, digits and _ and A|B lists of them exactly, case-sensitively', () => {
    expectYesNo(matcherSelects, {
      yes: [
        ['Bash', 'Bash'],
        ['Edit|Write', 'Write'],
        ['mcp__memory__create', 'mcp__memory__create'],
      ],
      no: [
        ['Bash', 'BashOutput'],
        ['bash', 'Bash'],
        ['Edit|Write', 'Read'],
        // Claude Code: a server prefix alone is an exact name, matching no tool; `.*` is needed.
        ['mcp__memory', 'mcp__memory__create'],
      ],
    });
  });
  it("treats anything else as a JavaScript regular expression searched in the name (Claude Code's rule)", () => {
    expectYesNo(matcherSelects, {
      yes: [
        ['mcp__memory__.*', 'mcp__memory__create'],
        ['mcp__.*__write.*', 'mcp__files__write_file'],
        ['^Notebook', 'NotebookEdit'],
        ['Notebook.*', 'NotebookEdit'],
        ['general-purpose', 'general-purpose'],
        // Unanchored, as in Claude Code: anchor with ^ and $ to match whole names.
        ['Edit.*', 'MultiEdit'],
      ],
      no: [
        ['^mcp__memory__.*', 'x_mcp__memory__create'],
        ['^Edit$', 'MultiEdit'],
        ['mcp__.*__write.*', 'mcp__files__read_file'],
      ],
    });
  });
  it('selects nothing with an invalid expression, never throws', () => {
    expectYesNo(matcherSelects, {
      no: [
        ['Bash(', 'Bash('],
        ['[', 'Bash'],
      ],
    });
  });
});

describe('hooksFor, mergeHooks, agentHooks', () => {
  const settings: HooksConfig = {
    PreToolUse: [{ matcher: 'Bash', hooks: [command('a'), command('b')] }, { hooks: [command('a'), command('c')] }],
    Stop: [{ matcher: 'ignored', hooks: [command('stop')] }],
    SubagentStop: [{ matcher: 'checker', hooks: [command('sub-stop')] }],
    SubagentStart: [{ hooks: [command('sub-start')] }],
  };
  it('selects by matcher in configuration order, identical commands once', () => {
    expect(hooksFor(settings, 'PreToolUse', 'Bash').map(hookLabel)).toEqual(['a', 'b', 'c']);
    expect(hooksFor(settings, 'PreToolUse', 'Read').map(hookLabel)).toEqual(['a', 'c']);
    expect(hooksFor(settings, 'PostToolUse', 'Read')).toEqual([]);
    expect(hooksFor(undefined, 'PreToolUse', 'Read')).toEqual([]);
  });
  it('ignores a matcher on Stop', () => {
    expect(hooksFor(settings, 'Stop', 'anything').map(hookLabel)).toEqual(['stop']);
  });
  it('merges event by event, and an empty merge is undefined', () => {
    expect(mergeHooks({ Stop: [{ hooks: [command('x')] }] }, undefined, { Stop: [{ hooks: [command('y')] }] })).toEqual(
      { Stop: [{ hooks: [command('x')] }, { hooks: [command('y')] }] },
    );
    expect(mergeHooks(undefined, {})).toBeUndefined();
  });
  it('a root runs settings and definition hooks, without the Subagent events', () => {
    const root = agentHooks(settings, { Stop: [{ hooks: [command('own-stop')] }] }, false);
    expect(hooksFor(root, 'Stop', undefined).map(hookLabel)).toEqual(['stop', 'own-stop']);
    expect(root?.SubagentStop).toBeUndefined();
    expect(root?.SubagentStart).toBeUndefined();
  });
  it("a subagent runs its definition's Stop hooks as SubagentStop, and not the settings' Stop hooks", () => {
    const child = agentHooks(settings, { Stop: [{ hooks: [command('own-stop')] }] }, true);
    expect(child?.Stop).toBeUndefined();
    expect(hooksFor(child, 'SubagentStop', 'checker').map(hookLabel)).toEqual(['sub-stop', 'own-stop']);
    // The settings' SubagentStop matches on the agent type; the definition's own hooks apply to it whatever its type.
    expect(hooksFor(child, 'SubagentStop', 'writer').map(hookLabel)).toEqual(['own-stop']);
  });
  it('describes hooks one line per event and matcher', () => {
    expect(describeHooks(settings)).toEqual([
      'PreToolUse[Bash]: a ; b',
      'PreToolUse: a ; c',
      'SubagentStart: sub-start',
      'SubagentStop[checker]: sub-stop',
      'Stop[ignored]: stop',
    ]);
  });
});

describe('interpretHookRun', () => {
  it('exit 2 blocks with stderr; for PreToolUse it is a deny', () => {
    expect(
      interpretHookRun('PreToolUse', 'h', run({ exitCode: 2, stderr: ' no rm \n', stdout: '{"decision":"approve"}' })),
    ).toEqual({
      command: 'h',
      kind: 'blocking',
      blocked: true,
      reason: 'no rm',
      permission: 'deny',
    });
    expect(interpretHookRun('Stop', 'h', run({ exitCode: 2, stderr: 'keep going' }))).toEqual({
      command: 'h',
      kind: 'blocking',
      blocked: true,
      reason: 'keep going',
    });
    expect(interpretHookRun('Stop', 'h', run({ exitCode: 2 })).reason).toContain(
      'exited with code 2 without a message',
    );
  });
  it('other exit codes, timeouts and spawn failures are non-blocking errors', () => {
    expect(interpretHookRun('PreToolUse', 'h', run({ exitCode: 1, stderr: 'oops' }))).toEqual({
      command: 'h',
      kind: 'error',
      notice: 'the hook failed with exit code 1: oops',
    });
    expect(interpretHookRun('PreToolUse', 'h', run({ exitCode: null, timedOut: true }))).toMatchObject({
      kind: 'error',
      notice: 'the hook timed out and was killed',
    });
    expect(interpretHookRun('Stop', 'h', run({ exitCode: null, spawnError: 'ENOENT' }))).toMatchObject({
      kind: 'error',
      notice: expect.stringContaining('ENOENT'),
    });
    for (const verdict of [
      interpretHookRun('PreToolUse', 'h', run({ exitCode: 127 })),
      interpretHookRun('Stop', 'h', run({ exitCode: 1 })),
    ]) {
      expect(verdict.blocked).toBeUndefined();
      expect(verdict.permission).toBeUndefined();
    }
  });
  it('reads JSON output: permission decisions, legacy decisions, block, continue false, additional context', () => {
    const json = (value: unknown) => run({ stdout: JSON.stringify(value) });
    expect(
      interpretHookRun(
        'PreToolUse',
        'h',
        json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'nope' } }),
      ),
    ).toMatchObject({ kind: 'success', permission: 'deny', reason: 'nope', blocked: true });
    expect(
      interpretHookRun('PreToolUse', 'h', json({ hookSpecificOutput: { permissionDecision: 'ask' } })),
    ).toMatchObject({ permission: 'ask' });
    expect(interpretHookRun('PreToolUse', 'h', json({ decision: 'approve', reason: 'fine' }))).toMatchObject({
      permission: 'allow',
      reason: 'fine',
    });
    expect(interpretHookRun('PreToolUse', 'h', json({ decision: 'block', reason: 'bad' }))).toMatchObject({
      permission: 'deny',
      blocked: true,
      reason: 'bad',
    });
    expect(
      interpretHookRun(
        'PostToolUse',
        'h',
        json({ decision: 'block', reason: 'lint failed', hookSpecificOutput: { additionalContext: 'ctx' } }),
      ),
    ).toMatchObject({ blocked: true, reason: 'lint failed', additionalContext: 'ctx' });
    expect(interpretHookRun('SubagentStop', 'h', json({ decision: 'block' }))).toMatchObject({
      blocked: true,
      reason: expect.stringContaining('without a reason'),
    });
    expect(
      interpretHookRun('Stop', 'h', json({ continue: false, stopReason: 'enough', systemMessage: 'bye' })),
    ).toMatchObject({ stop: 'enough', notice: 'bye' });
    // additionalContext of an event that has none is ignored.
    expect(
      interpretHookRun('Stop', 'h', json({ hookSpecificOutput: { additionalContext: 'x' } })).additionalContext,
    ).toBeUndefined();
  });
  it('treats non-JSON stdout as plain text: no decision, no error', () => {
    for (const stdout of ['hello', '{not json', '[1,2]', '   ']) {
      expect(interpretHookRun('PreToolUse', 'h', run({ stdout }))).toEqual({ command: 'h', kind: 'success' });
    }
    expect(parseHookOutput('{"a":')).toEqual({ text: '{"a":' });
  });
  it('JSON with fields of the wrong type is ignored with a notice, never thrown', () => {
    const verdict = interpretHookRun(
      'PreToolUse',
      'h',
      run({ stdout: JSON.stringify({ hookSpecificOutput: { permissionDecision: 'maybe' }, continue: 'no' }) }),
    );
    expect(verdict.kind).toBe('success');
    expect(verdict.permission).toBeUndefined();
    expect(verdict.notice).toMatch(/its JSON output was ignored/);
  });
  it('clips a huge stderr in notices', () => {
    const verdict = interpretHookRun('Stop', 'h', run({ exitCode: 3, stderr: 'x'.repeat(50_000) }));
    expect(verdict.notice!.length).toBeLessThan(2_100);
  });
});

describe('combineVerdicts', () => {
  it("deny beats ask beats allow, and the winners' reasons are kept", () => {
    const combined = combineVerdicts([
      { command: 'a', kind: 'success', permission: 'allow', reason: 'fine' },
      { command: 'b', kind: 'success', permission: 'ask', reason: 'check' },
      { command: 'c', kind: 'blocking', permission: 'deny', blocked: true, reason: 'no' },
    ]);
    expect(combined).toMatchObject({ permission: 'deny', blocked: true, reason: 'no' });
    expect(
      combineVerdicts([
        { command: 'a', kind: 'success', permission: 'allow' },
        { command: 'b', kind: 'success', permission: 'ask', reason: 'check' },
      ]),
    ).toMatchObject({ permission: 'ask', reason: 'check', blocked: false });
  });
  it('joins contexts and reasons, keeps the first stop, and names the command of each notice', () => {
    const combined = combineVerdicts([
      { command: 'a', kind: 'success', additionalContext: 'one' },
      { command: 'b', kind: 'blocking', blocked: true, reason: 'r1' },
      { command: 'c', kind: 'error', notice: 'failed' },
      { command: 'd', kind: 'success', additionalContext: 'two', stop: 'halt', blocked: true, reason: 'r2' },
    ]);
    expect(combined).toEqual({
      blocked: true,
      reason: 'r1\nr2',
      stop: 'halt',
      additionalContext: 'one\ntwo',
      notices: ['c: failed'],
      // Every hook that did not succeed (WorktreeCreate fails on any).
      failures: ['b: exit code 2: r1', 'c: failed'],
    });
    expect(combineVerdicts([])).toEqual({ blocked: false, notices: [] });
  });
});

describe('decidePermission with a rule or hook override', () => {
  it('allow skips the prompt, except in plan mode for changes', () => {
    expect(decidePermission('default', 'Bash', [], undefined, 'allow')).toEqual({ type: 'allow' });
    expect(decidePermission('plan', 'Bash', [], undefined, 'allow')).toMatchObject({ type: 'deny' });
  });
  it('ask asks even where the mode or an "always" would allow; dontAsk denies it', () => {
    expect(decidePermission('bypassPermissions', 'Bash', [], undefined, 'ask')).toEqual({ type: 'ask' });
    expect(decidePermission('default', 'Bash', ['Bash'], undefined, 'ask')).toEqual({ type: 'ask' });
    expect(decidePermission('default', 'Read', [], undefined, 'ask')).toEqual({ type: 'ask' });
    expect(decidePermission('dontAsk', 'Bash', [], undefined, 'ask')).toMatchObject({
      type: 'deny',
      reason: expect.stringContaining('dontAsk'),
    });
  });
});

describe('PreToolUse updatedInput', () => {
  const json = (value: unknown) => run({ exitCode: 0, stdout: JSON.stringify(value) });
  it('is kept from an allowing or silent hook, dropped when a hook denies, the last one winning', () => {
    const rewrite = interpretHookRun(
      'PreToolUse',
      'a',
      json({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { command: 'ls -la' } } }),
    );
    expect(rewrite.updatedInput).toEqual({ command: 'ls -la' });
    const later = interpretHookRun(
      'PreToolUse',
      'b',
      json({ hookSpecificOutput: { updatedInput: { command: 'ls' } } }),
    );
    expect(combineVerdicts([rewrite, later]).updatedInput).toEqual({ command: 'ls' });
    const deny = interpretHookRun(
      'PreToolUse',
      'c',
      json({ hookSpecificOutput: { permissionDecision: 'deny', updatedInput: { command: 'x' } } }),
    );
    expect(deny.updatedInput).toBeUndefined();
    expect(combineVerdicts([rewrite, deny]).updatedInput).toBeUndefined();
    // Only PreToolUse rewrites; an input that is not an object is refused as bad JSON output.
    expect(
      interpretHookRun('PostToolUse', 'd', json({ hookSpecificOutput: { updatedInput: { command: 'x' } } }))
        .updatedInput,
    ).toBeUndefined();
    expect(
      interpretHookRun('PreToolUse', 'e', json({ hookSpecificOutput: { updatedInput: 'rm -rf /' } })),
    ).toMatchObject({ kind: 'success', notice: expect.stringContaining('updatedInput') });
  });
});
