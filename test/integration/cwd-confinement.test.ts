import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { agentNamed, agentPrompted } from '../helpers/scripted-agents';
import { answeredRequestsOf, type ContentBlock } from '../helpers/model-requests';

const env = useAgentTestEnv();

const requestsOf = (agentId: string) => answeredRequestsOf(env.modelServer, agentId);

describe("an Agent call's cwd stays inside the parent's workspace", () => {
  it('refuses cwd outside the workspace (absolute, through a symbolic link, missing), resolves relative ones against the parent', async () => {
    const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-outside-')));
    mkdirSync(path.join(env.workspace, 'sub'), { recursive: true });
    symlinkSync('/etc', path.join(env.workspace, 'escape'));
    const calls = [
      { subagent_type: 'Explore', cwd: '/etc' },
      { subagent_type: 'general-purpose', cwd: outside },
      { subagent_type: 'Explore', cwd: 'escape' },
      { subagent_type: 'Explore', cwd: 'missing-dir' },
      { subagent_type: 'Explore', cwd: '.' },
      { subagent_type: 'Explore', cwd: 'sub' },
    ];
    env.script(
      agentNamed('cwd-root', [
        {
          toolUses: calls.map((call, index) => ({
            name: 'Agent',
            input: { description: `cwd ${index}`, prompt: `cwd child ${index}`, ...call },
          })),
        },
        { text: 'done' },
      ]),
      agentPrompted('cwd child', [{ text: 'child here' }]),
    );
    const { handle } = await runCompleted(env, { prompt: 'cwd checks', name: 'cwd-root' });
    const results = requestsOf(handle.agentId)[1]!.messages.at(-1)!.content as ContentBlock[];
    const text = (index: number) => JSON.stringify(results[index]);
    expect(results.slice(0, 4).every((block) => block.is_error)).toBe(true);
    expect(text(0)).toContain(
      `PathOutsideWorkspace: cwd \\"/etc\\" resolves to /etc, outside the workspace ${env.workspace}`,
    );
    expect(text(1)).toContain(
      `PathOutsideWorkspace: cwd \\"${outside}\\" resolves to ${outside}, outside the workspace ${env.workspace}`,
    );
    expect(text(2)).toContain('through a symbolic link');
    expect(text(3)).toContain(
      `FileNotFound: cwd \\"missing-dir\\" (resolved to ${path.join(env.workspace, 'missing-dir')}) does not exist`,
    );
    // Refused calls started no child: the children that ran are the last two.
    const startedChildren = (await handle.tree()).nodes.map((node) => node.agentId).sort();
    expect(startedChildren).toEqual([`${handle.agentId}.5`, `${handle.agentId}.6`]);
    expect(requestsOf(`${handle.agentId}.5`)[0]!.system[0]!.text).toContain(`Working directory: ${env.workspace}\n`);
    expect(requestsOf(`${handle.agentId}.6`)[0]!.system[0]!.text).toContain(
      `Working directory: ${path.join(env.workspace, 'sub')}\n`,
    );
    const child = await env.client.getAgent(`${handle.agentId}.6`).describe();
    expect(child.status.name).toBe('COMPLETED');
  });

  it('refuses to start a root in a directory that does not exist', async () => {
    await expect(env.start({ prompt: 'x', cwd: path.join(env.workspace, 'no-such-dir') })).rejects.toThrow(
      /does not exist/,
    );
  });
});
