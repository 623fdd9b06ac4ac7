// Agent types named in any language, and definitions too large to run, on the real server.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTypeKey } from '../../src/shared/protocol/search-attributes';
import { cli, useCliEnvironment } from '../helpers/in-process-cli';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { lastMessageBlocks } from '../helpers/model-requests';
import { agentNamed, agentOfType, spawn } from '../helpers/scripted-agents';

const env = useAgentTestEnv();
useCliEnvironment(env);

function writeAgent(file: string, text: string): void {
  const directory = path.join(env.workspace, '.claude', 'agents');
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, file), text);
}

const answered = (agentId: string) =>
  env.modelServer
    .requests()
    .filter((request) => request.status === 200 && request.path === '/v1/messages')
    .filter((request) => decodeURIComponent(request.headers['x-subagents-agent-id'] ?? '') === agentId);

describe('agent names in any language', () => {
  it('runs a type named レビュー担当 as a child and as a root: headers encoded, type and name intact', async () => {
    writeAgent('review.md', '---\nname: レビュー担当\ndescription: コードを読む\ntools: Read\n---\nYou review code.\n');
    env.script(
      agentNamed('names-root', [
        { toolUses: [spawn('確認', 'CHECK-IT', { subagent_type: 'レビュー担当', name: '審査係' })] },
        { text: 'ROOT-DONE' },
      ]),
      agentOfType('レビュー担当', [{ text: 'レビュー完了' }]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'review', name: 'names-root' });
    const rootSecond = answered(handle.agentId)[1]!;
    expect(JSON.stringify(lastMessageBlocks(JSON.parse(rootSecond.rawBody)))).toContain('レビュー完了');
    expect(result.finalText).toBe('ROOT-DONE');
    const childId = `${handle.agentId}.1`;
    const child = env.client.getAgent(childId);
    expect((await child.result()).finalText).toBe('レビュー完了');
    const description = await env.temporal.client.workflow.getHandle(childId).describe();
    expect(description.typedSearchAttributes.get(agentTypeKey)).toBe('レビュー担当');
    // What went over HTTP is ASCII (a header is bytes); decoded, it is the name as written.
    const request = answered(childId)[0]!;
    expect(request.headers['x-subagents-agent-type']).toMatch(/^[\x20-\x7e]+$/);
    expect(decodeURIComponent(request.headers['x-subagents-agent-type']!)).toBe('レビュー担当');

    env.script(agentOfType('レビュー担当', [{ text: 'ルートとして完了' }]));
    const root = await env.start({ prompt: 'as a root', type: 'レビュー担当' });
    expect((await root.result()).finalText).toBe('ルートとして完了');

    // The listing keeps its columns with wide characters.
    const listed = await cli('agents', '--dir', env.workspace);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('レビュー担当');
  });

  it('skips a name with a newline and a 5 MB prompt with the limit, and start --type says why', async () => {
    writeAgent('newline.md', '---\nname: "two\\nlines"\ndescription: bad name\n---\nprompt\n');
    writeAgent('huge.md', `---\nname: huge\ndescription: too big\n---\n${'x'.repeat(5 * 1024 * 1024)}\n`);
    const listed = await cli('agents', '--dir', env.workspace);
    expect(listed.out).toMatch(/skipped\s+.*newline\.md: name "two\\nlines" contains a control character/);
    expect(listed.out).toMatch(/skipped\s+.*huge\.md: the body of agent "huge" is 5\.0 MiB, over the 256 KiB limit/);

    await expect(env.start({ prompt: 'x', type: 'huge' })).rejects.toThrow(
      /Unknown agent type "huge": .*huge\.md defines it but was skipped: the body of agent "huge" is 5\.0 MiB, over the 256 KiB limit/,
    );
    const started = await cli('start', 'x', '--type', 'huge', '--cwd', env.workspace);
    expect(started.code).toBe(2);
    expect(started.err).toContain('over the 256 KiB limit');
    expect(started.err).not.toContain('check that the server');

    // Spawned by a model, it is an unknown type: the parent is told and goes on.
    env.script(
      agentNamed('huge-root', [
        { toolUses: [spawn('too big', 'x', { subagent_type: 'huge' })] },
        { text: 'HUGE-ROOT-DONE' },
      ]),
    );
    const { handle, result } = await runCompleted(env, { prompt: 'spawn huge', name: 'huge-root' });
    expect(result.finalText).toBe('HUGE-ROOT-DONE');
    const refusal = JSON.stringify(lastMessageBlocks(JSON.parse(answered(handle.agentId)[1]!.rawBody)));
    expect(refusal).toContain('Unknown agent type');
  });
});
