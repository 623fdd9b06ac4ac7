// @slow
import { describe, expect, it } from 'vitest';
import { SubagentsClient } from '../../src/client/client';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory, taskSteps } from '../helpers/histories';
import { agentNamed, bash, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

const textOf = (messages: { content: unknown }[]): string => JSON.stringify(messages);

/** How many times the watchdog asked the agent's running step for its output (the `readStepOutput` local activity). */
const outputLooks = async (agentId: string): Promise<number> =>
  (await taskSteps(env.temporal.client, agentId)).localActivities.filter((name) => name === 'readStepOutput').length;

describe('stall watchdog', () => {
  it('reports a child whose model stream stalls mid-way to its parent within the stall time, and stops it with stallAction "stop"', async () => {
    env.script(
      agentNamed('stall-root', [
        {
          toolUses: [
            spawnInBackground('stalls', 'Write the report', { subagent_type: 'general-purpose', name: 'staller' }),
          ],
        },
        { text: 'ROOT waits for the report.' },
        { text: 'ROOT saw: {{last_user_text}}' },
        { text: 'ROOT saw: {{last_user_text}}' },
      ]),
      // Sends message_start, a content block, a ping and one delta, then nothing while keeping the connection.
      agentNamed('staller', [{ text: 'The report begins here and never ends', stallAfterEvents: 4 }]),
    );
    const { handle } = await runCompleted(env, {
      prompt: 'delegate a report',
      name: 'stall-root',
      limits: { stallTimeoutMs: 3000, stallAction: 'stop' },
    });

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
    // The stream had sent a few events, then nothing: the watchdog looked at its output before judging it.
    expect(await outputLooks(child.agentId)).toBeGreaterThanOrEqual(1);
    await recordHistory(env.temporal.client, child.agentId, 'stall-watchdog-stop');
  });

  it('reports a hanging tool in its status but lets it run with the default action, until progress resumes', async () => {
    env.script(
      agentNamed('hang-root', [
        { toolUses: [bash('sleep 6; echo woke')] },
        { text: 'DONE after {{last_tool_result}}' },
      ]),
    );
    const handle = await env.start({
      prompt: 'run something slow',
      name: 'hang-root',
      limits: { stallTimeoutMs: 2000 },
    });
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
    // Bash heartbeats every second while sleep prints nothing: heartbeats alone are not progress.
    expect(await outputLooks(handle.agentId)).toBeGreaterThanOrEqual(1);
  });

  it('does not report a model call that keeps streaming for longer than the stall time', async () => {
    const answer = 'The slow answer arrives a few words at a time.';
    // Nine stream events a second apart: about 8 s of streaming against a 3 s stall time.
    env.script(agentNamed('slow-stream', [{ text: answer, eventDelayMs: 1000 }]));
    const { handle, result } = await runCompleted(env, {
      prompt: 'answer slowly',
      name: 'slow-stream',
      limits: { stallTimeoutMs: 3000, stallAction: 'stop' },
    });
    expect(result.finalText).toBe(answer);
    // The watchdog judged the call idle past the stall time, looked at its stream, and saw it grow.
    expect(await outputLooks(handle.agentId)).toBeGreaterThanOrEqual(1);
    await recordHistory(env.temporal.client, handle.agentId, 'stall-progress-model-stream');
  });

  it('does not report a command that prints a line every second for longer than the stall time', async () => {
    env.script(
      agentNamed('ticker', [
        { toolUses: [bash('for i in 1 2 3 4 5 6 7 8; do echo "tick $i"; sleep 1; done')] },
        { text: 'DONE after {{last_tool_result}}' },
      ]),
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'count slowly',
      name: 'ticker',
      limits: { stallTimeoutMs: 3000, stallAction: 'stop' },
    });
    expect(result.finalText).toContain('tick 8');
    expect(await outputLooks(handle.agentId)).toBeGreaterThanOrEqual(1);
    await recordHistory(env.temporal.client, handle.agentId, 'stall-progress-bash-ticks');
  });

  it('reports a command that printed and then went quiet, once its output stops growing', async () => {
    env.script(
      agentNamed('quiet', [
        { toolUses: [bash('echo started; sleep 9; echo finished')] },
        { text: 'DONE after {{last_tool_result}}' },
      ]),
    );
    const handle = await env.start({ prompt: 'start and wait', name: 'quiet', limits: { stallTimeoutMs: 2000 } });
    await waitFor(async () => (await handle.status()).stalled !== undefined, 30_000, 'the stall report');
    expect((await handle.status()).stalled).toMatchObject({
      state: 'running_tools',
      activity: 'running Bash',
      action: 'report',
    });
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.finalText).toContain('finished');
    // The first look saw "started" (output since the step began), a later one saw nothing new.
    expect(await outputLooks(handle.agentId)).toBeGreaterThanOrEqual(2);
    await recordHistory(env.temporal.client, handle.agentId, 'stall-progress-bash-quiet');
  });

  it('refuses stall settings out of range with a clear error', async () => {
    for (const limits of [
      { stallTimeoutMs: 0 },
      { stallTimeoutMs: -5 },
      { stallTimeoutMs: 1.5e12 },
      { stallTimeoutMs: 'soon' },
      { stallTimeoutMs: null },
      { stallAction: 'explode' },
    ]) {
      await expect(env.start({ prompt: 'x', limits: limits as never })).rejects.toThrow(/stallTimeoutMs|stallAction/);
    }
    expect(env.client).toBeInstanceOf(SubagentsClient);
  });
});
