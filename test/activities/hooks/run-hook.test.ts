/** The hook runner on real processes: stdin, environment, exit codes, timeouts, caps, cancellation. */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHookProcess } from '../../../src/activities/hooks/run-hook';
import { interpretHookRun, type HookRunInput } from '../../../src/shared/policy/hook-outcome';
import { hookLimits } from '../../../src/shared/policy/hooks';

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'run-hook-')));
const input = (command: string, fields: Partial<HookRunInput> = {}): HookRunInput => ({
  event: 'PreToolUse',
  command,
  timeoutMs: 10_000,
  cwd: dir,
  projectDir: '/the/project',
  payload: { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } },
  ...fields,
});

describe('runHookProcess', () => {
  it('gives the event as JSON on stdin, runs in the cwd with CLAUDE_PROJECT_DIR, and reports exit code and streams', async () => {
    const result = await runHookProcess(input('cat; echo; pwd; echo "$CLAUDE_PROJECT_DIR"; echo err >&2; exit 2'));
    const [json, cwd, projectDir] = result.stdout.trim().split('\n');
    expect(JSON.parse(json!)).toEqual({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    });
    expect(cwd).toBe(dir);
    expect(projectDir).toBe('/the/project');
    expect(result).toMatchObject({ exitCode: 2, stderr: 'err\n' });
    expect(interpretHookRun('PreToolUse', 'x', result)).toMatchObject({
      kind: 'blocking',
      permission: 'deny',
      reason: 'err',
    });
  });

  it('kills a hook that hangs at its timeout (its children too): a non-blocking error', async () => {
    const started = Date.now();
    const result = await runHookProcess(input('sleep 60 & sleep 60; echo never', { timeoutMs: 300 }));
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(interpretHookRun('PreToolUse', 'x', result)).toMatchObject({
      kind: 'error',
      notice: expect.stringContaining('timed out'),
    });
  });

  it('caps huge output and counts what it dropped', async () => {
    const result = await runHookProcess(
      input('head -c 3000000 /dev/zero | tr "\\0" a; head -c 500000 /dev/zero | tr "\\0" b >&2'),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(hookLimits.maxOutputChars);
    expect(result.stderr.length).toBe(hookLimits.maxOutputChars);
    expect(result.truncatedChars).toBe(3_500_000 - 2 * hookLimits.maxOutputChars);
    // Capped output is not JSON: plain text, no decision.
    expect(interpretHookRun('PreToolUse', 'x', result)).toEqual({ command: 'x', kind: 'success' });
  });

  it('a hook that ignores its stdin, a huge payload, or a missing cwd is no crash', async () => {
    const ignoring = await runHookProcess(input('exit 0', { payload: { big: 'x'.repeat(2_000_000) } }));
    expect(ignoring.exitCode).toBe(0);
    const missing = await runHookProcess(input('true', { cwd: path.join(dir, 'does-not-exist') }));
    expect(missing.spawnError ?? (missing.exitCode !== 0 ? 'failed' : undefined)).toBeDefined();
    expect(interpretHookRun('Stop', 'x', missing).kind).toBe('error');
  });

  it('a background job that keeps the pipes open does not keep the hook running', async () => {
    const started = Date.now();
    const result = await runHookProcess(input('(sleep 30 &) ; echo ok'));
    expect(result).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("does not source the user's ~/.bashrc, though its stdin is a socket (bash's remote-shell rule)", async () => {
    const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'run-hook-home-')));
    writeFileSync(path.join(home, '.bashrc'), 'echo BASHRC-RAN >&2\n');
    const previous = process.env.HOME;
    process.env.HOME = home;
    try {
      const result = await runHookProcess(input('cat > /dev/null; echo "home=$HOME"'));
      expect(result).toMatchObject({ exitCode: 0, stdout: `home=${home}\n` });
      expect(result.stderr).not.toContain('BASHRC-RAN');
    } finally {
      process.env.HOME = previous;
    }
  });

  it('cancellation kills the command', async () => {
    const controller = new AbortController();
    const running = runHookProcess(input('sleep 60'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.timedOut).toBeUndefined();
  });
});
