import { describe, expect, it } from 'vitest';
import { useAgentTestEnv } from '../helpers/agent-env';
import { runCompleted } from '../helpers/agent-waits';
import { waitFor } from '../helpers/child-worker';
import { recordHistory } from '../helpers/histories';
import { agentNamed, agentPrompted, spawnInBackground } from '../helpers/scripted-agents';

const env = useAgentTestEnv();

async function runIds(workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const execution of env.temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push(execution.runId);
  return runs;
}

describe('long sessions: continue-as-new at turn boundaries', () => {
  it('continues in new runs past the threshold, carrying the conversation, counters and queued messages', async () => {
    await env.writeFiles({ 'notes.txt': 'some notes\n' });
    env.script(
      agentNamed('can-root', [
        ...Array.from({ length: 11 }, (_, index) => ({
          text: `turn ${index + 1}`,
          toolUses: [{ name: 'Read', input: { file_path: 'notes.txt' } }],
          delayMs: 100,
        })),
        { text: 'FINAL after {{last_user_text}}' },
      ]),
    );
    const handle = await env.start({
      prompt: 'long session',
      name: 'can-root',
      maxTurns: 30,
      // Low enough for three runs of these 11 tool turns (about 6 events a turn, a run's start about 12).
      limits: { continueAsNewAfterEvents: 34 },
    });
    await waitFor(async () => (await runIds(handle.agentId)).length >= 2, 60_000, 'a second run');
    await env.client.send(handle.agentId, 'MESSAGE-ACROSS-RUNS');
    const result = await handle.result();
    expect(result.status).toBe('completed');
    expect(result.turns).toBe(12);
    expect(result.toolUses).toBe(11);
    expect(result.finalText).toContain('FINAL');
    expect((await runIds(handle.agentId)).length).toBeGreaterThanOrEqual(3);
    const messages = await handle.messages();
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(12);
    expect(JSON.stringify(messages)).toContain('MESSAGE-ACROSS-RUNS');
    // Usage accumulated over every run: each of the 12 model calls reported output tokens.
    expect(result.usage.outputTokens).toBeGreaterThanOrEqual(12);
    await recordHistory(env.temporal.client, handle.agentId, 'continue-as-new-last-run');
  });

  it('never continues-as-new under a running child: it waits until the child has finished', async () => {
    env.script(
      agentNamed('can-parent', [
        { toolUses: [spawnInBackground('background worker', 'BG-WORK')] },
        ...Array.from({ length: 6 }, () => ({
          toolUses: [{ name: 'Glob', input: { pattern: '*.none' } }],
          delayMs: 100,
        })),
        // The notification may arrive after any of the turns above (timing), so every text quotes the latest one.
        { text: 'parent waits: {{last_user_text}}' },
        { text: 'parent done: {{last_user_text}}' },
      ]),
      agentPrompted('BG-WORK', [{ text: 'background finished', delayMs: 2500 }]),
    );
    const { handle, result } = await runCompleted(env, {
      prompt: 'parent with child',
      name: 'can-parent',
      limits: { continueAsNewAfterEvents: 30 },
    });
    expect(result.finalText).toContain('background finished');
    const child = await env.temporal.client.workflow.getHandle(`${handle.agentId}.1`).describe();
    expect(child.status.name).toBe('COMPLETED');
  });
});
