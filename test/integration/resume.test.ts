import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { agentTypeKey } from '../../src/shared/protocol/search-attributes';
import { useAgentTestEnv } from '../helpers/agent-env';
import { agentNamed, bash } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

describe('resume', () => {
  it('continues a finished agent from its history in a new run; a type that no longer exists becomes general-purpose', async () => {
    const definition = path.join(env.workspace, '.claude', 'agents', 'temporary.md');
    mkdirSync(path.dirname(definition), { recursive: true });
    writeFileSync(
      definition,
      '---\nname: temporary\ndescription: A type that will be deleted\n---\nTEMPORARY-PROMPT\n',
    );
    env.script(
      agentNamed('resumable', [
        { text: 'FIRST-ANSWER' },
        { text: 'SECOND-ANSWER to {{last_user_text}}' },
        { text: 'THIRD-ANSWER to {{last_user_text}}' },
      ]),
    );
    const handle = await env.start({ prompt: 'first task', name: 'resumable', type: 'temporary' });
    expect((await handle.result()).finalText).toBe('FIRST-ANSWER');
    rmSync(definition);

    const resumed = await env.client.resume(handle.agentId, 'FOLLOW-UP-PROMPT');
    const result = await resumed.result();
    expect(result.finalText).toBe('SECOND-ANSWER to FOLLOW-UP-PROMPT');
    expect(result.agentType).toBe('general-purpose');
    const requests = env.modelServer
      .requests()
      .filter((request) => request.status === 200 && request.headers['x-subagents-agent-id'] === handle.agentId);
    const second = JSON.parse(requests[1]!.rawBody) as { messages: unknown[]; system: unknown };
    expect(JSON.stringify(second.messages)).toContain('FIRST-ANSWER');
    expect(second.messages).toHaveLength(3);
    expect(JSON.stringify(JSON.parse(requests[0]!.rawBody).system)).toContain('TEMPORARY-PROMPT');
    expect(JSON.stringify(second.system)).not.toContain('TEMPORARY-PROMPT');
    const description = await env.temporal.client.workflow.getHandle(handle.agentId).describe();
    expect(description.typedSearchAttributes.get(agentTypeKey)).toBe('temporary');
    // A resumed run can itself be resumed: the third run continues from both earlier ones.
    const again = await env.client.resume(handle.agentId, 'AGAIN-PROMPT');
    expect((await again.result()).finalText).toBe('THIRD-ANSWER to AGAIN-PROMPT');
    const third = JSON.parse(
      env.modelServer
        .requests()
        .filter((request) => request.status === 200 && request.headers['x-subagents-agent-id'] === handle.agentId)[2]!
        .rawBody,
    ) as { messages: unknown[] };
    expect(third.messages).toHaveLength(5);
    expect(JSON.stringify(third.messages)).toContain('SECOND-ANSWER to FOLLOW-UP-PROMPT');
  });

  it('refuses to resume a stopped agent or a running one', async () => {
    env.script(agentNamed('stoppable', [{ toolUses: [bash('sleep 20')] }]));
    const handle = await env.start({ prompt: 'long', name: 'stoppable' });
    await expect(env.client.resume(handle.agentId, 'now')).rejects.toThrow(/still running/);
    await handle.stop({ reason: 'enough' });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    await expect(env.client.resume(handle.agentId, 'now')).rejects.toThrow(/not resumed/);
  });
});
