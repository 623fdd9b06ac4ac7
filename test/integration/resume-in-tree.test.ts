// @slow
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { rootAgentIdKey } from '../../src/shared/protocol/search-attributes';
import { useAgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, bash, spawn, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

async function statusName(agentId: string): Promise<string | undefined> {
  try {
    return (await env.temporal.client.workflow.getHandle(agentId).describe()).status.name;
  } catch {
    return undefined;
  }
}

/** Starts an interactive root and waits until it idles for the next message; its first child's id beside it. */
async function startIdleRoot(prompt: string, name: string) {
  const root = await env.start({ prompt, name, interactive: { idleTimeoutMs: 120_000 } });
  await waitFor(async () => (await root.status()).waitingFor === 'the next message', 60_000, `${name} idle`);
  return { root, firstChildId: `${root.agentId}.1` };
}

describe('resume inside the tree', () => {
  it('resumes a finished child through its running root: same tree, registered with the root, stopped by its cascade', async () => {
    env.script(
      agentNamed('tree-keeper', [
        {
          toolUses: [spawn('first job', 'RESUMABLE-CHILD', { name: 'resumable' })],
        },
        { text: 'ROOT-WAITING' },
      ]),
      agentNamed('resumable', [{ text: 'CHILD-FIRST' }, { toolUses: [bash('sleep 60')] }]),
    );
    const { root, firstChildId: childId } = await startIdleRoot('keep the tree', 'tree-keeper');
    expect(await statusName(childId)).toBe('COMPLETED');

    const resumed = await env.client.resume(childId, 'CHILD-AGAIN');
    await waitFor(
      async () => (await resumed.status().catch(() => undefined))?.state === 'running_tools',
      60_000,
      'the resumed child running Bash',
    );
    const description = await env.temporal.client.workflow.getHandle(childId).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.parentExecution?.workflowId).toBe(root.agentId);
    expect(description.typedSearchAttributes.get(rootAgentIdKey)).toBe(root.agentId);
    const node = (await root.tree()).nodes.find(
      (candidate) => candidate.agentId === childId && candidate.status === 'running',
    );
    expect(node).toBeDefined();
    expect(JSON.stringify(await resumed.messages())).toContain('CHILD-FIRST');

    // The root's stop cascade reaches the resumed child.
    await root.stop({ reason: 'enough for today' });
    await expect(root.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    await waitFor(async () => (await statusName(childId)) === 'CANCELLED', 60_000, 'the resumed child cancelled');
    const stopped = (await env.client.getAgent(childId).status()).result!;
    expect(stopped.status).toBe('cancelled');
    expect(stopped.error).toContain(`enough for today (ancestor ${root.agentId} was stopped)`);
    await recordHistory(env.temporal.client, root.agentId, 'long-runs-resume-in-tree');
  });

  it('resumes a stopped agent only when asked explicitly (allowStopped / --force), also inside a running tree', async () => {
    env.script(
      agentNamed('stopped-root', [
        { toolUses: [bash('sleep 60')] },
        { text: 'RESUMED-AFTER-STOP: {{last_user_text}}' },
      ]),
      agentNamed('stopping-parent', [
        {
          toolUses: [spawnInBackground('slow', 'SLOW-CHILD', { name: 'slow' })],
        },
        { toolUses: [bash('until [ -f slow-started ]; do sleep 0.1; done')] },
        { toolUses: [{ name: 'TaskStop', input: { task_id: 'slow' } }] },
        { text: 'PARENT-IDLE' },
      ]),
      agentNamed('slow', [{ toolUses: [bash('touch slow-started && sleep 60')] }, { text: 'SLOW-CHILD-RESUMED' }]),
    );
    const lone = await env.start({ prompt: 'run long', name: 'stopped-root' });
    await waitFor(async () => (await lone.status()).state === 'running_tools', 60_000, 'Bash running');
    await lone.stop({ reason: 'pause it' });
    await expect(lone.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    await expect(env.client.resume(lone.agentId, 'carry on')).rejects.toThrow(
      /stopped agents are not resumed.*--force/,
    );
    const again = await env.client.resume(lone.agentId, 'carry on', { allowStopped: true });
    const result = await again.result();
    expect(result.status).toBe('completed');
    // The stopped turn's tool call was answered with who stopped it; the new prompt follows.
    expect(result.finalText).toMatch(/^RESUMED-AFTER-STOP: \[Stopped by user: pause it\]\ncarry on$/);

    const { root: parent, firstChildId: slowId } = await startIdleRoot('start and stop', 'stopping-parent');
    await expect(env.client.resume(slowId, 'finish now')).rejects.toThrow(/stopped/);
    const slow = await env.client.resume(slowId, 'finish now', { allowStopped: true });
    await waitFor(async () => (await statusName(slowId)) === 'COMPLETED', 60_000, 'the resumed child finished');
    expect((await slow.status()).result!.finalText).toBe('SLOW-CHILD-RESUMED');
    expect((await env.temporal.client.workflow.getHandle(slowId).describe()).parentExecution?.workflowId).toBe(
      parent.agentId,
    );
    await parent.close();
    expect((await parent.result()).finalText).toBe('PARENT-IDLE');
  });
});
