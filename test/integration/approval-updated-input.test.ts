// @slow
/** An approval answered with another input than the model's (docs/api.md `answerApproval`, docs/hooks.md `PermissionRequest`). */
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject, useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { runCli } from '../helpers/cli-process';
import { agentNamed, bash } from '../helpers/scripted-agents';
import { requestsOf as requestsFrom } from '../helpers/model-requests';

const homeDir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'approval-input-home-')));
const env = useAgentTestEnv({ kind: 'echo' }, { homeDir });

const project = (name: string, files: Record<string, string>): string => writeProject(env.workspace, name, files);
/** The tool result the model got in its `index`-th request. */
const resultText = (agentId: string, index: number): string =>
  JSON.stringify(requestsFrom(env.modelServer, agentId)[index]!.messages.at(-1));

/** The message of a refused update, with its cause's (the validator's words). */
async function refusal(answer: Promise<unknown>): Promise<string> {
  const error = (await answer.then(
    () => undefined,
    (failure: unknown) => failure,
  )) as (Error & { cause?: Error }) | undefined;
  if (!error) throw new Error('the answer was accepted');
  return `${error.message}: ${error.cause?.message ?? ''}`;
}

async function pendingRequest(handle: Awaited<ReturnType<typeof env.start>>) {
  await waitFor(async () => (await handle.approvals()).length === 1, 60_000, 'the approval a person is asked');
  return (await handle.approvals())[0]!;
}

describe('approval answers with an updated input', () => {
  it("runs the person's input instead of the model's, and refuses one the settings deny", async () => {
    const dir = project('person', {
      '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }),
      'keep.txt': 'kept\n',
    });
    env.script(
      agentNamed('person', [
        { toolUses: [bash('echo MODEL > model.txt')] },
        { toolUses: [bash('echo MODEL-AGAIN > again.txt')] },
        { text: 'done' },
      ]),
    );
    const handle = await env.start({ prompt: 'work', name: 'person', cwd: dir, permissionMode: 'default' });
    const first = await pendingRequest(handle);
    await handle.answerApproval(first.requestId, {
      approve: true,
      updatedInput: { command: 'echo PERSON > person.txt && echo ran-person' },
    });
    // The second call is approved with an input a deny rule refuses: nothing runs.
    await waitFor(
      async () => (await handle.approvals()).some((request) => request.requestId !== first.requestId),
      60_000,
      'the second approval',
    );
    const second = (await handle.approvals())[0]!;
    await handle.answerApproval(second.requestId, { approve: true, updatedInput: { command: 'rm keep.txt' } });
    expect((await handle.result()).status).toBe('completed');

    expect(readFileSync(path.join(dir, 'person.txt'), 'utf8').trim()).toBe('PERSON');
    expect(existsSync(path.join(dir, 'model.txt'))).toBe(false);
    expect(resultText(handle.agentId, 1)).toContain('ran-person');
    expect(existsSync(path.join(dir, 'keep.txt'))).toBe(true);
    expect(existsSync(path.join(dir, 'again.txt'))).toBe(false);
    expect(resultText(handle.agentId, 2)).toContain('PermissionRuleDenied');
  });

  it('refuses an updatedInput that is not an object or is too large, and keeps the request for a valid answer', async () => {
    const dir = project('hostile', {});
    env.script(agentNamed('hostile', [{ toolUses: [bash('echo MODEL > model.txt')] }, { text: 'done' }]));
    const handle = await env.start({ prompt: 'work', name: 'hostile', cwd: dir, permissionMode: 'default' });
    const request = await pendingRequest(handle);
    expect(
      await refusal(
        handle.answerApproval(request.requestId, {
          approve: true,
          updatedInput: 'echo pwned > pwned.txt' as unknown as Record<string, unknown>,
        }),
      ),
    ).toMatch(/updatedInput/);
    expect(
      await refusal(
        handle.answerApproval(request.requestId, { approve: true, updatedInput: { command: 'x'.repeat(300_000) } }),
      ),
    ).toMatch(/updatedInput is over/);
    expect((await handle.approvals()).map((pending) => pending.requestId)).toEqual([request.requestId]);
    await handle.answerApproval(request.requestId, { approve: true });
    expect((await handle.result()).status).toBe('completed');
    expect(readFileSync(path.join(dir, 'model.txt'), 'utf8').trim()).toBe('MODEL');
    expect(existsSync(path.join(dir, 'pwned.txt'))).toBe(false);
  });

  it("runs a PermissionRequest hook's updatedInput instead of asking", async () => {
    const allow = {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedInput: { command: 'echo HOOK > hook.txt' } },
      },
    };
    const dir = project('hook', {
      '.claude/settings.json': JSON.stringify({
        hooks: {
          PermissionRequest: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: `echo '${JSON.stringify(allow)}'` }] },
          ],
        },
      }),
    });
    env.script(agentNamed('hook', [{ toolUses: [bash('echo MODEL > model.txt')] }, { text: 'done' }]));
    const handle = await env.start({ prompt: 'work', name: 'hook', cwd: dir, permissionMode: 'default' });
    expect((await handle.result()).status).toBe('completed');
    expect(readFileSync(path.join(dir, 'hook.txt'), 'utf8').trim()).toBe('HOOK');
    expect(existsSync(path.join(dir, 'model.txt'))).toBe(false);
  });

  it('subagents approve --input runs that input; a bad --input is a usage error that answers nothing', async () => {
    const dir = project('cli', {});
    env.script(agentNamed('cli', [{ toolUses: [bash('echo MODEL > model.txt')] }, { text: 'done' }]));
    const handle = await env.start({ prompt: 'work', name: 'cli', cwd: dir, permissionMode: 'default' });
    const request = await pendingRequest(handle);
    for (const bad of [
      ['--input', '[1,2]'],
      ['--input', '{"command": '],
      ['--input', '{}', '--deny'],
    ]) {
      const run = await runCli(env, ['approve', handle.agentId, request.requestId, ...bad]);
      expect(run.code, `${bad.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/--input/);
    }
    expect((await handle.approvals()).map((pending) => pending.requestId)).toEqual([request.requestId]);
    const run = await runCli(env, [
      'approve',
      handle.agentId,
      request.requestId,
      '--input',
      JSON.stringify({ command: 'echo CLI > cli.txt' }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('with the given input');
    expect((await handle.result()).status).toBe('completed');
    expect(readFileSync(path.join(dir, 'cli.txt'), 'utf8').trim()).toBe('CLI');
    expect(existsSync(path.join(dir, 'model.txt'))).toBe(false);
  });
});
