// @slow
/** PreToolUse `defer` (docs/hooks.md): the call waits for a person as an approval does, through a worker's SIGKILL. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenario } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { useCrashHarness } from '../helpers/crash-harness';
import { agentWithId, bash } from '../helpers/scripted-agents';

const crash = useCrashHarness();

describe('a PreToolUse hook that defers a call', () => {
  it('makes the call wait for a person even in bypassPermissions; the wait survives a SIGKILL of the worker', async () => {
    const { workspace, taskQueue, client } = crash.prepare('hook-defer');
    const defer = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer' },
    });
    mkdirSync(path.join(workspace, '.claude'));
    writeFileSync(
      path.join(workspace, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                {
                  type: 'command',
                  command: `echo x >> "$CLAUDE_PROJECT_DIR/pre.log"; cat > /dev/null; echo '${defer}'`,
                },
              ],
            },
          ],
        },
      }),
    );
    const agentId = `hook-defer-${Date.now().toString(36)}`;
    crash.modelServer.setBehaviour(
      scenario([
        agentWithId(agentId, [{ toolUses: [bash('echo DEFERRED-RAN >> deferred.txt')] }, { text: 'DEFER-DONE' }]),
      ]),
    );
    const first = await crash.startWorker(taskQueue);
    const agent = await client.startAgent({
      agentId,
      prompt: 'run it',
      cwd: workspace,
      model: 'claude-test-tiny',
      permissionMode: 'bypassPermissions',
      limits: { forking: false },
    });
    await waitFor(async () => (await agent.approvals()).length === 1, 60_000, 'the deferred call to wait for a person');
    const [asked] = await agent.approvals();
    expect(asked!.tool).toBe('Bash');
    expect(asked!.inputSummary).toContain('deferred by a PreToolUse hook');
    expect(existsSync(path.join(workspace, 'deferred.txt'))).toBe(false);

    await first.kill('SIGKILL');
    await crash.startWorker(taskQueue);
    // The new worker takes the agent over: the same request still waits, and nothing ran.
    await waitFor(
      async () => (await agent.approvals()).map((request) => request.requestId).join() === asked!.requestId,
      60_000,
      'the request after the restart',
    );
    expect(existsSync(path.join(workspace, 'deferred.txt'))).toBe(false);
    await agent.answerApproval(asked!.requestId, { approve: true });
    const result = await agent.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('DEFER-DONE');
    // The call ran once, after the answer; its hook ran once (the new worker replayed the recorded run).
    expect(readFileSync(path.join(workspace, 'deferred.txt'), 'utf8')).toBe('DEFERRED-RAN\n');
    expect(readFileSync(path.join(workspace, 'pre.log'), 'utf8')).toBe('x\n');
  });
});
