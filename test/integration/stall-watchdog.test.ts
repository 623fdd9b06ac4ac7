import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client';
import { createAgentTestEnv, type AgentTestEnv } from '../helpers/agent-env';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';

let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ kind: 'echo' });
});
afterAll(async () => {
  await env?.close();
});

const textOf = (messages: { content: unknown }[]): string => JSON.stringify(messages);

describe('stall watchdog', () => {
  it('reports a child whose model stream stalls mid-way to its parent within the stall time, and stops it with stallAction "stop"', async () => {
    env.modelServer.setBehaviour({
      kind: 'scripted',
      scenario: {
        agents: [
          {
            match: { agentName: 'stall-root' },
            turns: [
              { toolUses: [{ name: 'Agent', input: { description: 'stalls', prompt: 'Write the report', subagent_type: 'general-purpose', name: 'staller', run_in_background: true } }] },
              { text: 'ROOT waits for the report.' },
              { text: 'ROOT saw: {{last_user_text}}' },
              { text: 'ROOT saw: {{last_user_text}}' },
            ],
          },
          // Sends message_start, a content block, a ping and one delta, then nothing while keeping the connection.
          { match: { agentName: 'staller' }, turns: [{ text: 'The report begins here and never ends', stallAfterEvents: 4 }] },
        ],
      } as never,
    });
    const handle = await env.start({ prompt: 'delegate a report', name: 'stall-root', limits: { stallTimeoutMs: 3000, stallAction: 'stop' } });
    const result = await handle.result();
    expect(result.status).toBe('completed');

    const child = (await handle.status()).children.find((task) => task.name === 'staller')!;
    expect(child.status).toBe('cancelled');
    const childHandle = env.client.getAgent(child.agentId);
    const childResult = await childHandle.result().catch(() => undefined);
    const childStatus = await childHandle.status();
    expect(childStatus.result?.error).toMatch(/^stopped by stall watchdog: no progress for \d+s \(calling the model\)/);
    expect(childResult === undefined || childResult.status === 'cancelled').toBe(true);

    // The parent got the stall report as a message, and then the child's stopped result.
    const rootText = textOf(await handle.messages());
    expect(rootText).toContain(`Agent ${child.agentId} has made no progress for`);
    expect(rootText).toContain('It is being stopped (stallAction \\"stop\\")');
    expect(rootText).toContain('stall watchdog');
    await recordHistory(env.temporal.client, child.agentId, 'stall-watchdog-stop');
  });

  it('reports a hanging tool in its status but lets it run with the default action, until progress resumes', async () => {
    env.modelServer.setBehaviour({
      kind: 'scripted',
      scenario: {
        agents: [{
          match: { agentName: 'hang-root' },
          turns: [{ toolUses: [{ name: 'Bash', input: { command: 'sleep 6; echo woke' } }] }, { text: 'DONE after {{last_tool_result}}' }],
        }],
      } as never,
    });
    const handle = await env.start({ prompt: 'run something slow', name: 'hang-root', limits: { stallTimeoutMs: 2000 } });
    await waitFor(async () => (await handle.status()).stalled !== undefined, 30_000, 'the stall report');
    const stalled = (await handle.status()).stalled!;
    expect(stalled).toMatchObject({ state: 'running_tools', activity: 'running Bash', action: 'report' });
    expect(stalled.afterMs).toBeGreaterThanOrEqual(2000);
    const description = await env.temporal.client.workflow.getHandle(handle.agentId).describe();
    expect(description.status.name).toBe('RUNNING');
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toContain('woke');
    expect((await handle.status()).stalled).toBeUndefined();
  });

  it('refuses stall settings out of range with a clear error', async () => {
    for (const limits of [{ stallTimeoutMs: 0 }, { stallTimeoutMs: -5 }, { stallTimeoutMs: 1.5e12 }, { stallTimeoutMs: 'soon' }, { stallTimeoutMs: null }, { stallAction: 'explode' }]) {
      await expect(env.start({ prompt: 'x', limits: limits as never })).rejects.toThrow(/stallTimeoutMs|stallAction/);
    }
    expect(env.client).toBeInstanceOf(SubagentsClient);
  });
});
