/**
 * `sandbox.autoAllowBashIfSandboxed` (docs/security.md, "The sandbox"): a default-mode agent's Bash
 * runs without an approval when the tree's settings say so, and asks otherwise; on a real Temporal
 * server with a scripted model.
 */
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { agentNamed, bash } from '../helpers/scripted-agents';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sandbox-auto-allow-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const touchTurn = { toolUses: [bash('touch made-by-bash.txt')] };

describe('sandboxed Bash without an approval', () => {
  it('runs a default-mode Bash call at once when the settings allow sandboxed commands', async () => {
    env.script(agentNamed('auto-allow', [touchTurn, { text: 'done' }]));
    const cwd = writeProject(env.workspace, 'auto-allow', {
      '.claude/settings.json': JSON.stringify({ sandbox: { autoAllowBashIfSandboxed: true } }),
    });
    await runCompleted(env, {
      prompt: 'make a file',
      name: 'auto-allow',
      cwd,
      permissionMode: 'default',
    });
    expect(existsSync(path.join(cwd, 'made-by-bash.txt'))).toBe(true);
  });

  it('still asks without the setting, and an ask rule beats it', async () => {
    env.script(
      agentNamed('no-auto-allow', [touchTurn, { text: 'done' }]),
      agentNamed('ask-rule', [touchTurn, { text: 'done' }]),
    );
    const plain = writeProject(env.workspace, 'no-auto-allow', {});
    const withAsk = writeProject(env.workspace, 'ask-rule', {
      '.claude/settings.json': JSON.stringify({
        sandbox: { autoAllowBashIfSandboxed: true },
        permissions: { ask: ['Bash(touch:*)'] },
      }),
    });
    for (const [name, cwd] of [
      ['no-auto-allow', plain],
      ['ask-rule', withAsk],
    ] as const) {
      const handle = await env.start({ prompt: 'make a file', name, cwd, permissionMode: 'default' });
      await waitFor(
        async () => (await handle.approvals()).length === 1,
        60_000,
        `${name}: the approval request of Bash`,
      );
      expect(existsSync(path.join(cwd, 'made-by-bash.txt'))).toBe(false);
      const [request] = await handle.approvals();
      expect(request!.tool).toBe('Bash');
      await handle.answerApproval(request!.requestId, { approve: false });
      expect((await handle.result()).status).toBe('completed');
      expect(existsSync(path.join(cwd, 'made-by-bash.txt'))).toBe(false);
    }
  });
});
